/** zod issues -> the documented 422 body (Rails-style messages, stable codes). */
import type * as z from "zod/mini";
import { ValidationError, type FieldError } from "../errors.ts";

type Issue = z.core.$ZodIssue;

function describe(issue: Issue): Omit<FieldError, "field"> {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined || issue.input === null
        ? { code: "blank", message: "can't be blank" }
        : { code: "invalid", message: `is invalid (expected ${issue.expected})` };
    case "too_small":
      return issue.origin === "string"
        ? issue.minimum === 1
          ? { code: "blank", message: "can't be blank" }
          : { code: "too_short", message: `is too short (minimum is ${issue.minimum} characters)` }
        : issue.origin === "array" || issue.origin === "set"
          ? { code: "too_short", message: `must have at least ${issue.minimum} items` }
          : { code: "too_small", message: `must be greater than or equal to ${issue.minimum}` };
    case "too_big":
      return issue.origin === "string"
        ? { code: "too_long", message: `is too long (maximum is ${issue.maximum} characters)` }
        : issue.origin === "array" || issue.origin === "set"
          ? { code: "too_long", message: `must have at most ${issue.maximum} items` }
          : { code: "too_big", message: `must be less than or equal to ${issue.maximum}` };
    case "invalid_value":
      return { code: "inclusion", message: "is not included in the list" };
    case "invalid_format":
      return { code: "invalid", message: `is invalid` };
    case "custom": {
      const params = (issue.params ?? {}) as { code?: string };
      return { code: params.code ?? "invalid", message: issue.message || "is invalid" };
    }
    default:
      return { code: "invalid", message: "is invalid" };
  }
}

export function fieldPath(path: readonly PropertyKey[], prefix?: string): string {
  const parts = path.map((p) => String(p));
  const joined = parts.join(".");
  return prefix ? (joined ? `${prefix}.${joined}` : prefix) : joined || "base";
}

export function toValidationError(issues: readonly Issue[], prefix?: string): ValidationError {
  // Two checks can say the same of one field (1e30 is above the maximum and outside the safe integers): once is enough.
  const errors = new Map<string, FieldError>();
  for (const i of issues) {
    const e = { field: fieldPath(i.path, prefix), ...describe(i) };
    errors.set(JSON.stringify([e.field, e.code, e.message]), e);
  }
  return new ValidationError([...errors.values()]);
}

/** Parse or throw the documented 422. */
export function parseOr422<T>(schema: z.ZodMiniType<T>, input: unknown, prefix?: string): T {
  // reportInput: without it zod omits `input`, and a wrong type would read as "can't be blank".
  const r = schema.safeParse(input, { reportInput: true });
  if (!r.success) throw toValidationError(r.error.issues, prefix);
  return r.data;
}
