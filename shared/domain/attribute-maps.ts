/**
 * The size limit of a free-form attribute map (`custom_attributes`, `additional_attributes`,
 * `content_attributes`, …): the HTTP schemas hold each map a request sends to it, and an update
 * that merges a map into the stored one holds the result to it, so no map grows past it.
 */
import { ValidationError } from "../errors.ts";

/** UTF-8 bytes of the map serialized as JSON. */
export const MAX_ATTRIBUTE_BYTES = 16 * 1024;

export const TOO_LARGE_MESSAGE = `is too large (maximum is ${MAX_ATTRIBUTE_BYTES / 1024} KB)`;

export function attributeBytes(map: unknown): number {
  return Buffer.byteLength(JSON.stringify(map), "utf8");
}

/** `sent` merged into `stored` (a key sent replaces that key, the others stay); 422 on `field` when the result is over the limit. */
export function mergeAttributes(field: string, stored: Record<string, unknown>, sent: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...stored, ...sent };
  if (attributeBytes(merged) > MAX_ATTRIBUTE_BYTES) throw ValidationError.field(field, "too_large", TOO_LARGE_MESSAGE);
  return merged;
}
