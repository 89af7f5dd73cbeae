import { canonicalId } from "../domain/auth.ts";
import { NotFound } from "../domain/errors.ts";

/** A positive integer path parameter in canonical form; anything else is a resource that cannot exist (404). */
export function idParam(params: Readonly<Record<string, string>>, name: string): number {
  const n = canonicalId(params[name]);
  if (n === undefined) throw new NotFound();
  return n;
}
