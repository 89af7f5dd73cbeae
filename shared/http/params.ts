import { canonicalId } from "../domain/auth.ts";
import { NotFound } from "../errors.ts";

/** A positive integer path parameter in canonical form; anything else is a resource that cannot exist (404). */
export function idParam(params: Readonly<Record<string, string>>, name: string): number {
  const n = canonicalId(params[name]);
  if (n === undefined) throw new NotFound();
  return n;
}

/** A delivery id path parameter (`msg_` + 32 hex digits); anything else is 404. */
export function deliveryIdParam(params: Readonly<Record<string, string>>, pattern: RegExp): string {
  const id = params["delivery_id"] ?? "";
  if (!pattern.test(id)) throw new NotFound();
  return id;
}
