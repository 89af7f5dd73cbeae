/**
 * Verifying a webhook delivery (Standard Webhooks): the HMAC of `<webhook-id>.<webhook-timestamp>.<raw body>`
 * under the webhook's `whsec_` secret, a timestamp at most 5 minutes off, and any of the
 * space-separated `v1,` signatures (a secret being rotated signs with both).
 */
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { WebhookEventName } from "./types.ts";

export { WebhookVerificationError };

/** A delivery's body: the event name, the delivery id and the event's data. */
export interface WebhookEvent {
  readonly event: WebhookEventName;
  readonly id: string;
  readonly [field: string]: unknown;
}

/** Request headers as Node (`IncomingHttpHeaders`), fetch (`Headers`) or a plain record give them. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries: Iterable<[string, unknown]> = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [k, v] of entries) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(" ") : String(v);
  }
  return out;
}

/**
 * The event of a delivery whose signature is right and recent; throws `WebhookVerificationError`
 * on a tampered body, a timestamp over 5 minutes away, a wrong secret or missing headers.
 * Pass the body exactly as received (a string or bytes), never re-serialised JSON.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, rawBody: string | Uint8Array): WebhookEvent {
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  return new Webhook(secret).verify(body, plainHeaders(headers)) as WebhookEvent;
}
