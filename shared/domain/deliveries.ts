/**
 * Deliveries: one per (event, webhook), created idempotently by
 * the fan-out, attempted by the delivery worker, every attempt logged, retried on a schedule.
 * Ports: DeliveryStore (DynamoDB), DeliveryQueue (SQS), Sender (HTTP). No AWS imports here.
 */
import { createHash } from "node:crypto";
import type { EventName, OperatorEventName } from "../events/catalog.ts";
import type { DomainEvent, OutboxEvent } from "../events/outbox.ts";
import { signatureHeaders } from "../delivery/signing.ts";
import { nextRetry, maxAttempts } from "../delivery/schedule.ts";
import type { SendResult } from "../delivery/sender.ts";
import { Conflict, NotFound, ValidationError } from "../errors.ts";
import { requireWebhook, signingSecrets, wants, type Webhook, type WebhookStore } from "./webhooks.ts";

/** `skipped`: the event came while its webhook was disabled (nothing sent; `recover` sends it). */
export type DeliveryStatus = "pending" | "retrying" | "succeeded" | "failed" | "skipped";


export interface Attempt {
  readonly attempt: number;
  readonly at: number;
  readonly status: "succeeded" | "failed";
  readonly response_status: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
  readonly next_attempt_at: number | null;
  /** The first RESPONSE_BODY_BYTES of the receiver's answer; null when none arrived. */
  readonly response_body?: string | null;
}

export interface Delivery {
  readonly id: string;
  readonly account_id: number;
  readonly webhook_id: number;
  readonly event: EventName;
  readonly event_id: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly response_status: number | null;
  readonly error: string | null;
  readonly duration_ms: number | null;
  /** Unix seconds of the next scheduled attempt; null unless retrying. */
  readonly next_attempt_at: number | null;
  readonly created_at: number;
  readonly updated_at: number;
  /** The webhook body, kept with the delivery (the outbox lives 7 days, the log 30). */
  readonly payload: string;
  /** Bumped by each resend; a queue message for an older seq is stale. */
  readonly seq: number;
  /** The current run is a resend: one attempt, no schedule. */
  readonly resend: boolean;
  /** Milliseconds: when the next attempt is due (finer than next_attempt_at). */
  readonly due_at_ms: number;
  readonly attempt_log: readonly Attempt[];
  /** A test send (`POST .../test`): marked in body and headers, outside health tracking. */
  readonly test?: boolean;
}

/** The delivery as replies show it, with its attempt log (the answers' bodies: see attemptsView). */
export function deliveryView(d: Delivery) {
  return {
    id: d.id,
    event: d.event,
    event_id: d.event_id,
    webhook_id: d.webhook_id,
    status: d.status,
    attempts: d.attempts,
    response_status: d.response_status,
    error: d.error,
    duration_ms: d.duration_ms,
    next_attempt_at: d.next_attempt_at,
    created_at: d.created_at,
    updated_at: d.updated_at,
    attempt_log: d.attempt_log.map(({ response_body: _b, ...a }) => a),
    ...(d.test ? { test: true } : {}),
  };
}

/** `GET .../attempts`: every attempt with what the receiver answered. */
export function attemptsView(d: Delivery) {
  return d.attempt_log.map((a) => ({
    attempt: a.attempt,
    at: a.at,
    response_status: a.response_status,
    response_body: a.response_body ?? null,
    duration_ms: a.duration_ms,
    error: a.error,
  }));
}

/** The delivery as the fan-out creates it: carried by the first-run message, written at the first attempt. */
export interface FirstRun {
  readonly event: EventName;
  readonly eventId: string;
  readonly payload: string;
  readonly createdAtMs: number;
}

/** What the deliveries queue carries: where to find the delivery, and which run it belongs to. */
export interface DeliveryMessage {
  readonly deliveryId: string;
  readonly accountId: number;
  readonly webhookId: number;
  readonly seq: number;
  /**
   * Messages of an older fan-out, which wrote no delivery: the first attempt wrote it from
   * this. Today's fan-out writes the pending delivery itself and leaves this out.
   */
  readonly first?: FirstRun | undefined;
}

export interface DeliveryPage {
  readonly items: Delivery[];
  readonly count: number;
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
}

export interface DeliveryStore {
  /** True when this event was fanned out already (its marker exists). */
  fannedOut(eventId: string): Promise<boolean>;
  /** Writes the event's fan-out marker (after its messages were sent). */
  markFannedOut(eventId: string, accountId: number, nowMs: number): Promise<void>;
  /** Writes new deliveries; one that exists already (a repeated fan-out) is left as it is. */
  insertDeliveries(deliveries: readonly Delivery[]): Promise<void>;
  /** The delivery and its webhook in one read. */
  loadForAttempt(msg: DeliveryMessage): Promise<{ delivery?: Delivery; webhook?: Webhook }>;
  /**
   * Writes the attempt only if the delivery is still as read (`prev.seq`, `prev.attempts`), or,
   * with `isNew`, does not exist yet; false when another run got there first.
   */
  recordAttempt(prev: Delivery, next: Delivery, isNew: boolean): Promise<boolean>;
  getDelivery(deliveryId: string): Promise<Delivery | undefined>;
  /** Starts a new run (seq + 1) if unchanged since read. */
  replaceDelivery(prev: Delivery, next: Delivery): Promise<void>;
  listDeliveries(accountId: number, webhookId: number, page: { per: number; page: number; cursor?: string | undefined }, nowSec: number): Promise<DeliveryPage>;
}

/** The webhook's health, written only on transitions (never once per delivery in the steady state). */
export interface HealthStore {
  /** Records the first failure of a run of failures (no-op if another attempt recorded one). */
  markFailing(w: Webhook, sinceSec: number): Promise<void>;
  /** Clears the failure run after a success (no-op if already cleared). */
  clearFailing(w: Webhook): Promise<void>;
  /** Disables the webhook and emits the operator event, once; true when this call did it. */
  disable(w: Webhook, reason: string, atSec: number, event: DomainEvent): Promise<boolean>;
}

export interface DeliveryQueue {
  enqueue(messages: readonly DeliveryMessage[]): Promise<void>;
}

export type Sender = (url: string, body: string, headers: Record<string, string>) => Promise<SendResult>;

export const DELIVERY_TTL_SECONDS = 30 * 24 * 3600;

const DELIVERY_ID_PREFIX = "msg_";
const DELIVERY_ID_HEX_DIGITS = 32;

/** What a delivery id (and so every webhook-id header) looks like: `msg_` and 32 lower-case hex digits. */
export const DELIVERY_ID = new RegExp(`^${DELIVERY_ID_PREFIX}[0-9a-f]{${DELIVERY_ID_HEX_DIGITS}}$`);

/** Deterministic: the same event and webhook always give the same delivery (and webhook-id). */
export function deliveryIdFor(eventId: string, accountId: number, webhookId: number): string {
  return `${DELIVERY_ID_PREFIX}${createHash("sha256").update(`${eventId}:${accountId}:${webhookId}`).digest("hex").slice(0, DELIVERY_ID_HEX_DIGITS)}`;
}

/**
 * One delivery per matching webhook, idempotently: an event whose fan-out marker exists was
 * fanned out already and makes no new messages. The deliveries themselves are written by their
 * first attempt (ids derived from event and webhook, conditional put), so the fan-out costs one
 * read and one write per event, not a write per webhook. Should it die between sending and
 * marking, the retry sends again; the worker drops the duplicates (see attemptDelivery).
 */
export async function fanOut(
  hooks: Pick<WebhookStore, "listWebhooks">,
  store: Pick<DeliveryStore, "fannedOut" | "markFannedOut" | "insertDeliveries">,
  queue: DeliveryQueue,
  e: OutboxEvent,
  nowMs: number,
): Promise<{ matched: number; enqueued: number; skipped: number }> {
  const [done, webhooks] = await Promise.all([store.fannedOut(e.eventId), hooks.listWebhooks(e.accountId)]);
  const targets = webhooks.filter((w) => wants(w, e.event, e.inboxId));
  if (done) return { matched: targets.length, enqueued: 0, skipped: 0 };
  const first: FirstRun = { event: e.event, eventId: e.eventId, payload: e.payload, createdAtMs: nowMs };
  const deliveries = targets.map((w) => {
    const d = initialDelivery({ deliveryId: deliveryIdFor(e.eventId, e.accountId, w.id), accountId: e.accountId, webhookId: w.id, seq: 0 }, first);
    return w.status === "disabled" ? skippedDelivery(d, Math.floor(nowMs / 1000)) : d;
  });
  // The log shows every delivery from here on: pending (queued) or skipped (webhook disabled).
  if (deliveries.length) await store.insertDeliveries(deliveries);
  const messages: DeliveryMessage[] = deliveries
    .filter((d) => d.status === "pending")
    .map((d) => ({ deliveryId: d.id, accountId: d.account_id, webhookId: d.webhook_id, seq: 0 }));
  if (messages.length) await queue.enqueue(messages);
  await store.markFannedOut(e.eventId, e.accountId, nowMs);
  return { matched: targets.length, enqueued: messages.length, skipped: deliveries.length - messages.length };
}

const skippedDelivery = (d: Delivery, nowSec: number): Delivery => ({
  ...d,
  status: "skipped",
  error: "webhook disabled",
  next_attempt_at: null,
  updated_at: Math.max(nowSec, d.updated_at),
});

/** The pending delivery a first-run message describes. */
export function initialDelivery(msg: DeliveryMessage, first: FirstRun): Delivery {
  const sec = Math.floor(first.createdAtMs / 1000);
  return {
    id: msg.deliveryId,
    account_id: msg.accountId,
    webhook_id: msg.webhookId,
    event: first.event,
    event_id: first.eventId,
    status: "pending",
    attempts: 0,
    response_status: null,
    error: null,
    duration_ms: null,
    next_attempt_at: null,
    created_at: sec,
    updated_at: sec,
    payload: first.payload,
    seq: 0,
    resend: false,
    due_at_ms: first.createdAtMs,
    attempt_log: [],
  };
}

/** The attempt an outcome recorded, if one was made (the worker turns it into metrics). */
export interface AttemptMade {
  /** succeeded; retrying = failed, another attempt scheduled; failed = failed, no attempt left. */
  readonly status: Exclude<DeliveryStatus, "pending" | "skipped">;
  readonly durationMs: number;
}

/** What the queue adapter does with the message after an attempt. */
export type AttemptOutcome =
  /** Done with this message (delivered, given up quietly, or stale): delete it. */
  | { readonly kind: "done"; readonly reason: string; readonly attempt?: AttemptMade; readonly disabled?: Webhook }
  /** Leave it in the queue and make it reappear after `delaySeconds` (0 = now: on to the DLQ). */
  | { readonly kind: "again"; readonly delaySeconds: number; readonly reason: string; readonly attempt?: AttemptMade; readonly disabled?: Webhook };

export interface AttemptDeps {
  readonly store: Pick<DeliveryStore, "loadForAttempt" | "recordAttempt">;
  readonly send: Sender;
  readonly schedule: readonly number[];
  readonly nowMs: () => number;
  /** Health tracking: a webhook failing for `disableAfterSeconds` is disabled. */
  readonly health?: { readonly store: HealthStore; readonly disableAfterSeconds: number };
  /** Pacing of a webhook with a rate_limit: seconds to wait before sending (0 = now). */
  readonly pace?: (w: Webhook, nowMs: number) => Promise<number>;
}

/** The header a test send carries (and `"test": true` in its body). */
export const TEST_HEADER = "webhook-test";

/**
 * One attempt of one delivery. A stale message (older seq, finished delivery) is dropped; a
 * message that arrives early is put back until due; a failure schedules the next step or, after
 * the last one, marks the delivery `failed` and sends the message on to the DLQ.
 */
export async function attemptDelivery(deps: AttemptDeps, msg: DeliveryMessage, receiveCount = 1): Promise<AttemptOutcome> {
  const loaded = await deps.store.loadForAttempt(msg);
  const webhook = loaded.webhook;
  // A first-run message whose delivery exists already is a duplicate (a repeated fan-out),
  // unless SQS handed it out before: then it is the message driving this delivery's retries.
  // Today the fan-out writes the pending delivery, so a first-run message (seq 0) received for
  // the first time whose delivery was attempted already is a duplicate.
  if (loaded.delivery && msg.seq === 0 && receiveCount <= 1 && (msg.first !== undefined || loaded.delivery.attempts > 0)) {
    return { kind: "done", reason: "duplicate first run" };
  }
  const isNew = !loaded.delivery && msg.first !== undefined && msg.seq === 0;
  const d = loaded.delivery ?? (isNew && msg.first ? initialDelivery(msg, msg.first) : undefined);
  if (!d || d.seq !== msg.seq) return { kind: "done", reason: "stale" };
  if (d.status === "succeeded") return { kind: "done", reason: "already delivered" };
  if (d.status === "skipped") return { kind: "done", reason: "skipped" };
  // Failed for good: keep failing the message so that SQS moves it to the DLQ (maxReceiveCount).
  if (d.status === "failed") return { kind: "again", delaySeconds: 0, reason: "failed: to the DLQ" };
  const now = deps.nowMs();
  if (d.due_at_ms > now + 500) return { kind: "again", delaySeconds: Math.ceil((d.due_at_ms - now) / 1000), reason: "not due" };
  // A disabled webhook gets nothing (test sends aside): the delivery is logged `skipped`, for `recover`.
  if (webhook?.status === "disabled" && !d.test) {
    const skipped = await deps.store.recordAttempt(d, skippedDelivery(d, Math.floor(now / 1000)), isNew);
    return { kind: "done", reason: skipped ? "webhook disabled: skipped" : "overtaken by another run" };
  }
  // Pacing: over the webhook's rate the message waits (visibility), neither sent nor counted as an attempt.
  if (webhook && webhook.rate_limit !== null && deps.pace) {
    const wait = await deps.pace(webhook, now);
    if (wait > 0) return { kind: "again", delaySeconds: wait, reason: "paced" };
  }

  // The delivery's record exists before its first POST: a crash mid-send leaves a pending record
  // the pipeline can drive again (same webhook-id), never a request with no log.
  if (isNew && !(await deps.store.recordAttempt(d, d, true))) return { kind: "done", reason: "overtaken by another run" };
  const attempt = d.attempts + 1;
  const tsSec = Math.floor(now / 1000);
  const result: SendResult = webhook
    ? await deps.send(webhook.url, d.payload, {
        ...signatureHeaders(signingSecrets(webhook, tsSec), d.id, tsSec, d.payload),
        ...(d.test ? { [TEST_HEADER]: "true" } : {}),
      })
    : { ok: false, status: null, error: "webhook deleted", durationMs: 0 };
  const after = deps.nowMs();
  // A refused address is final: the next attempt would meet the same guard.
  const retry = result.ok || result.blocked || !webhook || d.resend || attempt >= maxAttempts(deps.schedule)
    ? ({ retry: false } as const)
    : nextRetry(deps.schedule, attempt, result.retryAfterSeconds);
  const dueAt = retry.retry ? after + retry.delaySeconds * 1000 : after;
  const nextAttemptAt = retry.retry ? Math.ceil(dueAt / 1000) : null;
  const status: DeliveryStatus = result.ok ? "succeeded" : retry.retry ? "retrying" : "failed";
  const log: Attempt = {
    attempt,
    at: tsSec,
    status: result.ok ? "succeeded" : "failed",
    response_status: result.status,
    error: result.error,
    duration_ms: result.durationMs,
    next_attempt_at: nextAttemptAt,
    response_body: result.body ?? null,
  };
  const next: Delivery = {
    ...d,
    status,
    attempts: attempt,
    response_status: result.status,
    error: result.error,
    duration_ms: result.durationMs,
    next_attempt_at: nextAttemptAt,
    due_at_ms: dueAt,
    updated_at: Math.floor(after / 1000),
    attempt_log: [...d.attempt_log, log],
  };
  if (!(await deps.store.recordAttempt(d, next, false))) return { kind: "done", reason: "overtaken by another run" };
  const made: AttemptMade = { status, durationMs: result.durationMs };
  const disabled = webhook && deps.health && !d.test ? await trackHealth(deps.health, webhook, result.ok, Math.floor(after / 1000)) : undefined;
  const extra = disabled ? { disabled } : {};
  if (status === "succeeded") return { kind: "done", reason: "delivered", attempt: made, ...extra };
  if (status === "retrying") return { kind: "again", delaySeconds: retry.retry ? retry.delaySeconds : 0, reason: "retry scheduled", attempt: made, ...extra };
  // A deleted webhook will never succeed: no point parking the message in the DLQ (and no
  // request was made: nothing to count).
  if (!webhook) return { kind: "done", reason: "webhook deleted" };
  return { kind: "again", delaySeconds: 0, reason: "failed: to the DLQ", attempt: made, ...extra };
}

/** The operator event that says a webhook was disabled (on the bus, never to webhooks). */
export const WEBHOOK_DISABLED_EVENT = "webhook_disabled" satisfies OperatorEventName;

/**
 * Consecutive-failure tracking without a write per delivery: only the first failure of a run
 * (success -> failure) and the first success after it (failure -> success) write, conditionally;
 * a steady state (all succeeding, or failing with the run already recorded) writes nothing. A
 * failure when the run is older than the threshold disables the webhook (once). Returns the
 * webhook this call disabled, if any.
 */
export async function trackHealth(
  health: NonNullable<AttemptDeps["health"]>,
  w: Webhook,
  ok: boolean,
  nowSec: number,
): Promise<Webhook | undefined> {
  if (ok) {
    if (w.failing_since !== null) await health.store.clearFailing(w);
    return undefined;
  }
  if (w.failing_since === null) {
    await health.store.markFailing(w, nowSec);
    return undefined;
  }
  if (w.status !== "active" || nowSec - w.failing_since < health.disableAfterSeconds) return undefined;
  const hours = Math.round((health.disableAfterSeconds / 3600) * 100) / 100;
  const reason = `every attempt failed for ${hours} hours (since ${new Date(w.failing_since * 1000).toISOString()})`;
  const event: DomainEvent = {
    event: WEBHOOK_DISABLED_EVENT,
    accountId: w.account_id,
    payload: { event: WEBHOOK_DISABLED_EVENT, id: String(w.id), account_id: w.account_id, url: w.url, reason, failing_since: w.failing_since, disabled_at: nowSec },
  };
  return (await health.store.disable(w, reason, nowSec, event)) ? { ...w, status: "disabled", disabled_reason: reason, disabled_at: nowSec } : undefined;
}

/** `POST .../resend`: a new attempt of the same delivery id (same webhook-id), any status. */
/** A new run of a delivery (seq + 1): one attempt, due now; the queue message of an older run goes stale. */
export function rerun(d: Delivery, nowMs: number): Delivery {
  return {
    ...d,
    status: "pending",
    seq: d.seq + 1,
    resend: true,
    next_attempt_at: null,
    due_at_ms: nowMs,
    updated_at: Math.max(Math.floor(nowMs / 1000), d.updated_at),
  };
}

export async function resendDelivery(
  hooks: WebhookStore,
  store: Pick<DeliveryStore, "getDelivery" | "replaceDelivery">,
  queue: DeliveryQueue,
  accountId: number,
  webhookId: number,
  deliveryId: string,
  now: Date,
): Promise<Delivery> {
  const webhook = await requireWebhook(hooks, accountId, webhookId);
  const d = await store.getDelivery(deliveryId);
  if (!d || d.account_id !== accountId || d.webhook_id !== webhookId) throw new NotFound();
  // A disabled webhook's attempt would only be logged `skipped`: as recover, refused.
  if (webhook.status === "disabled") throw new Conflict("The webhook is disabled: turn it on (status active), then resend", "webhook_disabled");
  const next = rerun(d, now.getTime());
  await store.replaceDelivery(d, next);
  await queue.enqueue([{ deliveryId: next.id, accountId, webhookId, seq: next.seq }]);
  return next;
}

/** One delivery of this account's webhook, or 404. */
export async function showDelivery(
  hooks: WebhookStore,
  store: Pick<DeliveryStore, "getDelivery">,
  accountId: number,
  webhookId: number,
  deliveryId: string,
): Promise<Delivery> {
  await requireWebhook(hooks, accountId, webhookId);
  const d = await store.getDelivery(deliveryId);
  if (!d || d.account_id !== accountId || d.webhook_id !== webhookId) throw new NotFound();
  return d;
}

export async function listDeliveries(
  hooks: WebhookStore,
  store: Pick<DeliveryStore, "listDeliveries">,
  accountId: number,
  webhookId: number,
  page: { per: number; page: number; cursor?: string | undefined },
  now: Date,
): Promise<DeliveryPage> {
  await requireWebhook(hooks, accountId, webhookId);
  return store.listDeliveries(accountId, webhookId, page, Math.floor(now.getTime() / 1000));
}
