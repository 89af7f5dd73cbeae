import { NotFound } from "../domain/errors.ts";

/** A positive integer path parameter; anything else is a resource that cannot exist (404). */
export function idParam(params: Readonly<Record<string, string>>, name: string): number {
  const raw = params[name];
  const n = raw !== undefined && /^[1-9][0-9]{0,14}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) throw new NotFound();
  return n;
}

/** A delivery id path parameter (`msg_` + 32 hex digits); anything else is 404. */
export function deliveryIdParam(params: Readonly<Record<string, string>>, pattern: RegExp): string {
  const id = params["delivery_id"] ?? "";
  if (!pattern.test(id)) throw new NotFound();
  return id;
}
