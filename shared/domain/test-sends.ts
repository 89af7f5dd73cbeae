/**
 * `POST .../webhooks/{id}/test`: one signed sample of a subscribed event, marked as a test
 * (`"test": true` in the body, a `webhook-test: true` header), through the same queue and worker
 * as real deliveries, so it shows in the log with its attempts. Test sends reach a disabled
 * webhook too (that is how one checks it before turning it back on) and never count for health.
 */
import { randomBytes } from "node:crypto";
import type { EventName } from "../events/catalog.ts";
import { ValidationError } from "../errors.ts";
import { initialDelivery, type Delivery, type DeliveryQueue, type DeliveryStore } from "./deliveries.ts";
import { requireWebhook, type Webhook, type WebhookStore } from "./webhooks.ts";

/**
 * A sample body of `event`: every field a real payload of that event has (the schemas of
 * shared/events/payloads.ts), with made-up resource values.
 */
export function samplePayload(event: EventName, w: Webhook, nowSec: number): Record<string, unknown> {
  const account = { id: w.account_id, name: "Sample account" };
  const inbox = { id: w.inbox_id ?? 1, name: "Sample inbox" };
  const contact = { id: 1, name: "Sample contact", email: "contact@example.com", phone_number: null, identifier: null, thumbnail: "" };
  const conversation = { id: 1, status: "open", inbox_id: inbox.id };
  const base = { event, id: "1", test: true, account, created_at: nowSec };
  if (event.startsWith("message_")) {
    const sender = { id: 1, name: contact.name, type: "contact" };
    return { ...base, content: "This is a test message", message_type: "incoming", content_type: "text", content_attributes: {}, private: false, source_id: null, sender, conversation, inbox };
  }
  if (event.startsWith("conversation_typing")) return { ...base, user: { id: 1, name: "Sample agent", type: "user" }, conversation, is_private: false };
  if (event.startsWith("conversation_")) {
    const changed = event === "conversation_created" ? {} : { changed_attributes: [{ status: { previous_value: "pending", current_value: "open" } }] };
    return { ...base, status: "open", inbox_id: inbox.id, contact, meta: { sender: { ...contact, type: "contact" }, assignee: null }, messages: [], ...changed };
  }
  if (event.startsWith("contact_")) return { ...base, ...contact, id: "1", custom_attributes: {}, additional_attributes: {} };
  if (event.startsWith("inbox_")) return { ...base, name: inbox.name, channel_type: "Channel::Api" };
  return { ...base, contact, inbox, event_info: {}, source_id: null };
}

export async function sendTest(
  hooks: WebhookStore,
  store: Pick<DeliveryStore, "insertDeliveries">,
  queue: DeliveryQueue,
  accountId: number,
  webhookId: number,
  event: EventName,
  now: Date,
): Promise<Delivery> {
  const w = await requireWebhook(hooks, accountId, webhookId);
  if (!w.subscriptions.includes(event)) throw ValidationError.field("event", "not_subscribed", "is not one of the webhook's subscriptions");
  const nowMs = now.getTime();
  const id = `msg_${randomBytes(16).toString("hex")}`;
  const payload = JSON.stringify(samplePayload(event, w, Math.floor(nowMs / 1000)));
  const d: Delivery = {
    ...initialDelivery({ deliveryId: id, accountId, webhookId, seq: 0 }, { event, eventId: `test_${id.slice(4)}`, payload, createdAtMs: nowMs }),
    test: true,
  };
  await store.insertDeliveries([d]);
  await queue.enqueue([{ deliveryId: d.id, accountId, webhookId, seq: 0 }]);
  return d;
}
