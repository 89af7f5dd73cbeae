import * as z from "zod/mini";
import { EVENT_NAMES, isEventName, type EventName } from "../../events/catalog.ts";
import { lazy } from "../../lazy.ts";
import { blankAsNull, boolField, emptyReply, intField, named, pageMetaView, refView, reply, unixTime } from "./common.ts";
import { pagingShape } from "./paging.ts";
import { MAX_GRACE_SECONDS } from "../../domain/webhooks.ts";

/** Chatwoot clients send `{"webhook":{...}}`; others the fields plainly. */
const unwrap = (v: unknown): unknown => {
  if (v && typeof v === "object" && !Array.isArray(v) && "webhook" in v) {
    const inner = (v as { webhook: unknown }).webhook;
    if (inner && typeof inner === "object" && !Array.isArray(inner)) return inner;
  }
  return v;
};

/** Non-empty, every value one of the 12 events: else 422 "Subscriptions Invalid events" on `subscriptions`. */
const subscriptions = z.pipe(
  z.array(z.unknown()).register(z.globalRegistry, { description: "Event names, at least one", items: { type: "string", enum: [...EVENT_NAMES] } }).check(
    z.refine((a) => a.length > 0 && a.every((s) => typeof s === "string" && isEventName(s)), {
      message: "Invalid events",
      params: { code: "invalid_events" },
    }),
  ),
  z.transform((a) => a as EventName[]),
);

const name = z.nullable(z.string().check(z.trim(), z.maxLength(255)));
const webhookType = z.enum(["account_type", "inbox_type"]);
const inboxId = blankAsNull(z.nullable(intField()));

/** Deliveries per second (pacing); null removes the limit. */
const rateLimit = blankAsNull(z.nullable(intField(1, 10_000)));

const WRAPPED = { description: 'Also accepted wrapped as {"webhook": {...}} (Chatwoot clients send that).' };

/**
 * A receiver's url: http(s) with a host and a port other than 0, at most 2,048 characters, and no
 * whitespace or control character inside it (surrounding whitespace is trimmed). `user:password@`
 * is sent as HTTP Basic authentication, as any HTTP client does with such a url.
 */
function isReceiverUrl(v: string): boolean {
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(v) || !URL.canParse(v)) return false;
  const u = new URL(v);
  return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "" && u.port !== "0";
}
const webhookUrl = z.string().check(z.trim(), z.maxLength(2048), z.refine(isReceiverUrl, { message: "is invalid", params: { code: "invalid" } }));
const status = z.enum(["active", "disabled"]);

export const createWebhookBody = lazy(() => z.pipe(
  z.transform(unwrap),
  z.object({
    url: webhookUrl,
    subscriptions,
    name: z.optional(name),
    webhook_type: z.optional(webhookType),
    inbox_id: z.optional(inboxId),
    rate_limit: z.optional(rateLimit),
    status: z.optional(status),
  }).register(z.globalRegistry, WRAPPED),
));

export const updateWebhookBody = lazy(() => z.pipe(
  z.transform(unwrap),
  z.object({
    url: z.optional(webhookUrl),
    subscriptions: z.optional(subscriptions),
    name: z.optional(name),
    webhook_type: z.optional(webhookType),
    inbox_id: z.optional(inboxId),
    rate_limit: z.optional(rateLimit),
    status: z.optional(status),
  }).register(z.globalRegistry, WRAPPED),
));

/** reset_secret: an empty body rotates with the default overlap window (a day). */
export const resetSecretBody = lazy(() => z.pipe(
  z.transform((v: unknown) => v ?? {}),
  z.object({
    grace_seconds: z.optional(intField(0, MAX_GRACE_SECONDS)),
    force: z.optional(boolField()),
  }),
));

/** recover: the window of deliveries (by creation time) to re-queue; ISO 8601 or unix seconds. */
const instant = z.pipe(
  z.union([
    z.number().check(z.int(), z.nonnegative()),
    // Unix seconds as a string of digits (a form field, or Rails' cast), else an ISO 8601 date.
    z.string().check(z.refine((s) => /^\d{1,12}$/.test(s) || !Number.isNaN(Date.parse(s)), { message: "is not a date" })),
  ]),
  z.transform((v) => (typeof v === "number" ? v : /^\d{1,12}$/.test(v) ? Number(v) : Math.floor(Date.parse(v) / 1000))),
);
export const recoverBody = lazy(() => z.object({ since: instant, until: z.optional(instant) }));

/** test: one sample of a subscribed event. */
export const testSendBody = lazy(() => z.object({ event: z.enum(EVENT_NAMES) }));

/** `page` and `per` as on every list (shared/http/schemas/paging.ts); the cursor is the delivery log's own. */
export const listQuery = lazy(() => z.object({
  page: pagingShape.page,
  per: pagingShape.per,
  cursor: z.optional(z.string().check(z.maxLength(2048))),
}));

// ---------------------------------------------------------------- replies

export const webhookView = named(
  "Webhook",
  () => z.looseObject({
    id: z.int(),
    name: z.nullable(z.string()),
    url: z.string(),
    account_id: z.int(),
    subscriptions: z.array(z.enum(EVENT_NAMES)),
    webhook_type: webhookType,
    inbox: z.nullable(refView()),
    secret: z.string(),
    previous_secret_expires_at: z.nullable(unixTime),
    status: z.enum(["active", "disabled"]),
    disabled_reason: z.nullable(z.string()),
    disabled_at: z.nullable(unixTime),
    rate_limit: z.nullable(z.int()),
    created_at: unixTime,
    updated_at: unixTime,
  }),
  "A webhook. `secret` (whsec_...) keys the Standard Webhooks signature of every delivery; during a rotation's overlap window (until `previous_secret_expires_at`) the previous secret signs too.",
);

const attemptView = lazy(() => z.looseObject({
  attempt: z.int(),
  at: unixTime,
  status: z.enum(["succeeded", "failed"]),
  response_status: z.nullable(z.int()),
  error: z.nullable(z.string()),
  duration_ms: z.number(),
  next_attempt_at: z.nullable(unixTime),
}));

export const deliveryView = named(
  "Delivery",
  () => z.looseObject({
    id: z.string(),
    event: z.enum(EVENT_NAMES),
    event_id: z.string(),
    webhook_id: z.int(),
    status: z.enum(["pending", "retrying", "succeeded", "failed", "skipped"]),
    test: z.optional(z.boolean()),
    attempts: z.int(),
    response_status: z.nullable(z.int()),
    error: z.nullable(z.string()),
    duration_ms: z.nullable(z.number()),
    next_attempt_at: z.nullable(unixTime),
    created_at: unixTime,
    updated_at: unixTime,
    attempt_log: z.array(attemptView()),
  }),
  "A delivery (+ the attempt log): one per (event, webhook); `id` is the webhook-id header of every attempt.",
);

const oneWebhook = lazy(() => z.looseObject({ payload: z.looseObject({ webhook: webhookView() }) }));

export const webhookReply = reply(() => oneWebhook(), "The webhook");
export const webhookListReply = reply(() => z.looseObject({ payload: z.looseObject({ webhooks: z.array(webhookView()) }) }), "Every webhook of the account");
export const webhookDeletedReply = emptyReply("Deleted (empty body)");
export const deliveryListReply = reply(() => z.looseObject({ payload: z.array(deliveryView()), meta: pageMetaView() }), "Deliveries of the webhook, newest first");
export const deliveryResendReply = reply(() => z.looseObject({ payload: z.looseObject({ delivery: deliveryView() }) }), "The delivery, queued for one more attempt", 202);

const attemptDetail = lazy(() => z.looseObject({
  attempt: z.int(),
  at: unixTime,
  response_status: z.nullable(z.int()),
  response_body: z.nullable(z.string()),
  duration_ms: z.number(),
  error: z.nullable(z.string()),
}));
export const attemptsReply = reply(() => z.looseObject({ payload: z.array(attemptDetail()) }), "Every attempt of the delivery, oldest first, with the first 1 KB of what the receiver answered");
export const recoverReply = reply(() => z.looseObject({ recovered: z.int() }), "Deliveries of the window re-queued (failed or skipped ones)", 202);
export const testSendReply = reply(() => z.looseObject({ payload: z.looseObject({ delivery: deliveryView() }) }), "The test delivery, queued", 202);
