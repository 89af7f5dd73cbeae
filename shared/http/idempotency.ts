/** The `Idempotency-Key` request header: absent, or 1..255 printable ASCII characters, spaces included (else 400). */
import { BadRequest } from "../errors.ts";
import { IDEMPOTENCY_KEY_FORMAT } from "../domain/checkout/idempotency.ts";

export function idempotencyKey(headers: Readonly<Record<string, string>>): string | undefined {
  const raw = headers["idempotency-key"];
  if (raw === undefined) return undefined;
  const key = raw.trim();
  if (!IDEMPOTENCY_KEY_FORMAT.test(key)) throw new BadRequest("bad_idempotency_key", "Idempotency-Key must be 1 to 255 printable ASCII characters");
  return key;
}
