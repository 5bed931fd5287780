import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/src/generated/**", "**/coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "error",
    },
  },
  {
    // Functions a reader can follow and files a newcomer can take in (tests and generated code
    // aside): past these, split into named steps (docs/architecture.md, "How we write code").
    files: ["apps/*/src/**/*.{ts,tsx}", "packages/*/src/**/*.ts"],
    ignores: ["**/*.test.ts", "**/test/**", "packages/testkit/**", "**/src/generated/**"],
    rules: {
      "max-lines-per-function": ["error", { max: 110, skipBlankLines: true, skipComments: true }],
      "max-lines": ["error", { max: 350, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The API's routes, adapters and HTTP layer translate HTTP to use-cases and back: they reach
    // the database only through @svc/use-cases (its queries included). The composition root wires
    // repositories into the parts; types may be named anywhere.
    files: ["apps/api/src/**/*.ts"],
    ignores: [
      "apps/api/src/entry.ts",
      "apps/api/src/server.ts",
      "apps/api/src/prime.ts",
      "apps/api/src/routes/operations.ts",
      "apps/api/src/**/*.test.ts",
      "apps/api/src/test/**",
    ],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@svc/db",
              message: "Routes and adapters call use-cases (@svc/use-cases); only types come from @svc/db.",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.test.ts", "**/test/**", "**/bin/**", "packages/cli/**", "**/bench/**", "scripts/**"],
    rules: { "no-console": "off" },
  },
);
