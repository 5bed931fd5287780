import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Served by the API process at /console (apps/api/src/console/static.ts); `pnpm dev` proxies the
// console's API to an API on :3000.
export default defineConfig({
  base: "/console/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 600 },
  server: { proxy: { "/console/api": "http://127.0.0.1:3000", "/files": "http://127.0.0.1:3000" } },
});
