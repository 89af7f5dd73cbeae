/**
 * Free-form maps a client stores as given (`custom_attributes`, `additional_attributes`,
 * `content_attributes`, a widget event's `event_info`): one validator for all of them, so bad
 * input is a 422 naming the field, never a 500 from the store. Refused: a number that is not
 * finite, an integer outside the safe range (JSON.parse turns 12345678901234567890 into an
 * inexact number and 1e400 into Infinity) or one nearer to 0 than the store's smallest; nesting
 * deeper than MAX_DEPTH levels; a key that names an object prototype slot or is empty (the
 * store keeps no empty map key); a map over MAX_BYTES serialized.
 */
import * as z from "zod/mini";
import { attributeBytes, MAX_ATTRIBUTE_BYTES, TOO_LARGE_MESSAGE } from "../../domain/attribute-maps.ts";

export const MAX_DEPTH = 10;
export const MAX_BYTES = MAX_ATTRIBUTE_BYTES;
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export interface AttributeProblem {
  readonly code: "unsafe_number" | "too_deep" | "forbidden_key" | "empty_key" | "too_large";
  readonly message: string;
}

/** The smallest magnitude the store keeps (DynamoDB numbers are 0 or 1e-130..1e126 in magnitude). */
export const MIN_MAGNITUDE = 1e-130;

/** A number the store keeps exactly: finite, an integer only within ±(2^53 - 1), none too close to 0. */
export const isStorableNumber = (n: number): boolean =>
  Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n)) && (n === 0 || Math.abs(n) >= MIN_MAGNITUDE);

/** The first problem of a value nested `depth` levels deep (the map itself is level 1). */
function problemIn(value: unknown, depth: number): AttributeProblem | undefined {
  if (typeof value === "number") {
    return isStorableNumber(value) ? undefined : { code: "unsafe_number", message: "contains a number outside ±2^53, not finite or below 1e-130 in magnitude" };
  }
  if (value === null || typeof value !== "object") return undefined;
  if (depth > MAX_DEPTH) return { code: "too_deep", message: `is nested deeper than ${MAX_DEPTH} levels` };
  const entries = Array.isArray(value) ? value.map((v) => [undefined, v] as const) : Object.entries(value);
  for (const [key, v] of entries) {
    if (key === "") return { code: "empty_key", message: "contains an empty key" };
    if (key !== undefined && FORBIDDEN_KEYS.has(key)) return { code: "forbidden_key", message: `contains the reserved key ${key}` };
    const found = problemIn(v, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** What is wrong with a client's attribute map, if anything (a non-object is left to the type check). */
export function attributeProblem(value: unknown): AttributeProblem | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const found = problemIn(value, 1);
  if (found) return found;
  if (attributeBytes(value) > MAX_BYTES) {
    return { code: "too_large", message: TOO_LARGE_MESSAGE };
  }
  return undefined;
}

/** The schema of every free-form map in a request body: checked on the raw input (before any copy drops a key). */
export const attributeMap = () =>
  z.pipe(
    z.transform((value: unknown, ctx) => {
      const problem = attributeProblem(value);
      if (problem) {
        ctx.issues.push({ code: "custom", message: problem.message, input: value, params: { code: problem.code } });
        return z.NEVER;
      }
      return value;
    }),
    z.record(z.string(), z.unknown()),
  );
