/**
 * The outbox: an event is an item written in the same TransactWriteItems
 * as the change that causes it. The table stream + EventBridge Pipe forward inserts of these
 * items; they also are the 7-day event log that `resend` reads.
 */
import { randomUUID } from "node:crypto";
import { isEventName, type EventName, type OperatorEventName } from "./catalog.ts";
import { checkPayload } from "./payloads.ts";
import { pipelineJson } from "./queue-json.ts";

export const OUTBOX_ENTITY = "outbox";
export const OUTBOX_TTL_SECONDS = 7 * 24 * 3600;

/** What a use case asks to emit; the repository writes it with the state change. */
export interface DomainEvent {
  /** A webhook event (one of the 12 subscribable ones) or an operator event (subscription_created...). */
  readonly event: EventName | OperatorEventName;
  readonly accountId: number;
  /** The inbox the event belongs to (inbox-scope webhooks); absent for contact events. */
  readonly inboxId?: number;
  /** The webhook body: `{event, id, ...}`. */
  readonly payload: { readonly event: EventName | OperatorEventName; readonly id: string } & Record<string, unknown>;
}

export interface OutboxItem {
  pk: string;
  sk: string;
  entity: typeof OUTBOX_ENTITY;
  eventId: string;
  event: EventName | OperatorEventName;
  accountId: number;
  inboxId?: number;
  payload: string;
  occurredAt: number;
  expiresAt: number;
}

/** One webhook event of the outbox as the fan-out sees it (read back from the events queue). */
export interface OutboxEvent {
  readonly eventId: string;
  readonly event: EventName;
  readonly accountId: number;
  readonly inboxId?: number | undefined;
  readonly payload: string;
}

export const outboxKey = (eventId: string) => ({ pk: `OUTBOX#${eventId}`, sk: "OUTBOX" });

export function outboxItem(e: DomainEvent, nowMs: number, eventId: string = randomUUID()): OutboxItem {
  // Webhook events must have their documented shape (payloads.ts): a builder bug throws here,
  // before the transaction, instead of reaching customers.
  if (isEventName(e.event)) {
    if (e.payload.event !== e.event) throw new Error(`outbox: payload.event ${e.payload.event} != ${e.event}`);
    checkPayload(e.event, e.payload);
  }
  return {
    ...outboxKey(eventId),
    entity: OUTBOX_ENTITY,
    eventId,
    event: e.event,
    accountId: e.accountId,
    ...(e.inboxId !== undefined ? { inboxId: e.inboxId } : {}),
    payload: pipelineJson(e.payload),
    occurredAt: nowMs,
    expiresAt: Math.floor(nowMs / 1000) + OUTBOX_TTL_SECONDS,
  };
}
