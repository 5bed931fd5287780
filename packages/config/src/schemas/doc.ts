import { z } from "zod";

export const LOG_LEVELS = ["error", "warn", "info", "http", "debug", "silent"] as const;

/**
 * A variable's meaning, said once: docs/configuration.md and .env.example are generated from it
 * (`pnpm docs:config`). `example` is what .env.example shows for a variable without a default.
 */
export interface VariableDoc {
  description: string;
  example?: string;
}
export const doc = <S extends z.ZodType>(schema: S, description: string, example?: string): S =>
  schema.meta({ description, ...(example !== undefined && { example }) });
