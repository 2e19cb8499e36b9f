import type { z } from "zod";
import { type ValidationIssue, validationError } from "../errors/service-error.ts";

/** Zod's issues as the envelope lists them: a dotted path and a message. */
export function zodIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
}

/** Parses with a schema, or throws VALIDATION_ERROR naming every field that is wrong. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationError(zodIssues(parsed.error));
  return parsed.data;
}
