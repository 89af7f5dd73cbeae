/**
 * Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`, keyed with the base64-decoded part of `whsec_<base64>`.
 */
import { createHmac, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

function secretKey(secret: string): Buffer {
  const raw = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(raw, "base64");
}

export function sign(secret: string, id: string, timestampSec: number, body: string): string {
  // A string is hashed as its UTF-8 bytes.
  const mac = createHmac("sha256", secretKey(secret)).update(`${id}.${timestampSec}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/**
 * The three Standard Webhooks headers of one attempt. During a rotation's overlap window there
 * are two secrets (the new one first): one `v1,` signature per secret, space-separated, so a
 * receiver verifying with either secret accepts the delivery.
 */
export function signatureHeaders(secrets: string | readonly string[], id: string, timestampSec: number, body: string): Record<string, string> {
  const all = typeof secrets === "string" ? [secrets] : secrets;
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSec),
    "webhook-signature": all.map((s) => sign(s, id, timestampSec, body)).join(" "),
  };
}
