/**
 * After a crash (SIGKILL, power loss) the sandbox's queues are gone: fauxqs keeps its messages in
 * memory. On restart, every event whose fan-out or delivery had not finished is driven again,
 * found in DynamoDB: an outbox event with no delivery record for a webhook that matches it gets a
 * first-run message, a delivery record not in a final state (succeeded, failed) gets a message
 * for its current run. Delivery ids derive from (event, webhook), so a receiver sees the same
 * `webhook-id` again and can deduplicate; the delivery worker drops what was done meanwhile.
 */
import { scanAll } from "../../shared/db/query.ts";
import { webhooksRepo } from "../../shared/db/webhooks-repo.ts";
import { deliveryIdFor, type Delivery, type DeliveryMessage } from "../../shared/domain/deliveries.ts";
import { wants, type Webhook } from "../../shared/domain/webhooks.ts";
import { isEventName } from "../../shared/events/catalog.ts";
import { OUTBOX_ENTITY, type OutboxItem } from "../../shared/events/outbox.ts";
import { deliveryQueue } from "../../shared/queue/sqs.ts";

const scanEntities = (entities: readonly string[]): Promise<Record<string, unknown>[]> =>
  scanAll({
    FilterExpression: entities.map((_, i) => `entity = :e${i}`).join(" OR "),
    ExpressionAttributeValues: Object.fromEntries(entities.map((e, i) => [`:e${i}`, e])),
  });

const FINAL = new Set(["succeeded", "failed"]);

/** The messages that drive again every unfinished (event, webhook) pair; what redrive sends. */
export async function unfinishedDeliveries(): Promise<DeliveryMessage[]> {
  const items = await scanEntities([OUTBOX_ENTITY, "delivery"]);
  const deliveries = new Map<string, Delivery>();
  for (const i of items) if (i["entity"] === "delivery") deliveries.set(String(i["id"]), i as unknown as Delivery);
  const hooks = new Map<number, Promise<Webhook[]>>();
  const hooksOf = (accountId: number) => {
    if (!hooks.has(accountId)) hooks.set(accountId, webhooksRepo.listWebhooks(accountId));
    return hooks.get(accountId)!;
  };
  const out: DeliveryMessage[] = [];
  const outbox = items.filter((i) => i["entity"] === OUTBOX_ENTITY) as unknown as OutboxItem[];
  for (const e of outbox.sort((x, y) => x.occurredAt - y.occurredAt)) {
    if (!isEventName(e.event)) continue;
    // A webhook created after the event never was one of its targets.
    const targets = (await hooksOf(e.accountId)).filter((w) => wants(w, e.event as never, e.inboxId) && w.created_at <= Math.ceil(e.occurredAt / 1000));
    for (const w of targets) {
      const deliveryId = deliveryIdFor(e.eventId, e.accountId, w.id);
      const d = deliveries.get(deliveryId);
      if (!d) {
        out.push({ deliveryId, accountId: e.accountId, webhookId: w.id, seq: 0, first: { event: e.event, eventId: e.eventId, payload: e.payload, createdAtMs: e.occurredAt } });
      } else if (!FINAL.has(d.status)) {
        out.push({ deliveryId, accountId: e.accountId, webhookId: w.id, seq: d.seq });
      }
    }
  }
  // Deliveries whose outbox item is gone (a resend of an old event) and are still under way.
  const covered = new Set(out.map((m) => m.deliveryId));
  for (const d of deliveries.values()) {
    if (!FINAL.has(d.status) && !covered.has(d.id) && !outbox.some((e) => e.eventId === d.event_id)) {
      out.push({ deliveryId: d.id, accountId: d.account_id, webhookId: d.webhook_id, seq: d.seq });
    }
  }
  return out;
}

/** Puts the unfinished deliveries back on the deliveries queue; returns how many. */
export async function redriveUnfinished(): Promise<number> {
  const messages = await unfinishedDeliveries();
  if (messages.length) await deliveryQueue.enqueue(messages);
  return messages.length;
}
