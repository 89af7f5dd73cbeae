/**
 * What a restarted sandbox drives again (infra/local/recovery.ts), read from DynamoDB: an event
 * with no delivery record for a webhook that matches it, and a delivery not yet final; never a
 * finished delivery or a webhook that does not want the event.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { unfinishedDeliveries } from "../../infra/local/recovery.ts";
import { setConfig } from "../../shared/config.ts";
import { deliveriesRepo } from "../../shared/db/webhooks-repo.ts";
import { deliveryIdFor, initialDelivery } from "../../shared/domain/deliveries.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { outboxOf } from "../support/outbox.ts";

let a: AccountFixture;
let contacts: number;
let conversations: number;

beforeAll(async () => {
  // The webhooks point at 127.0.0.1: registration refuses loopback urls unless private networks are allowed.
  setConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORK: "true" });
  a = await makeAccount("Recovery");
  const hook = (subscriptions: string[]) =>
    invoke("webhooks.create", { params: { account_id: a.accountId }, key: a.adminKey, body: { url: `http://127.0.0.1:9/${subscriptions[0]}`, subscriptions } });
  contacts = (await hook(["contact_created"])).json.payload.webhook.id;
  conversations = (await hook(["conversation_created"])).json.payload.webhook.id;
});

describe("sandbox recovery", () => {
  it("drives again the unfinished (event, webhook) pairs only", async () => {
    for (const name of ["Undelivered", "Pending", "Delivered"]) await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { name } });
    const events = await outboxOf(a.accountId, "contact_created");
    const byName = new Map(events.map((e) => [e.payload.name as string, e]));
    const idOf = (name: string) => deliveryIdFor(String(allIds.get(name)), a.accountId, contacts);
    const allIds = new Map<string, string>();
    const unfinished = (await unfinishedDeliveries()).filter((m) => m.accountId === a.accountId);
    // Before any delivery record: one first-run message per contact event, for the contacts hook only.
    expect(unfinished.map((m) => [m.webhookId, m.seq, m.first?.event])).toEqual([0, 1, 2].map(() => [contacts, 0, "contact_created"]));
    expect(unfinished.map((m) => m.webhookId)).not.toContain(conversations);
    for (const m of unfinished) if (m.first) allIds.set(JSON.parse(m.first.payload).name, m.first.eventId);
    const pending = initialDelivery({ deliveryId: idOf("Pending"), accountId: a.accountId, webhookId: contacts, seq: 0 }, { event: "contact_created", eventId: allIds.get("Pending")!, payload: JSON.stringify(byName.get("Pending")!.payload), createdAtMs: Date.now() });
    const delivered = { ...initialDelivery({ deliveryId: idOf("Delivered"), accountId: a.accountId, webhookId: contacts, seq: 0 }, { event: "contact_created", eventId: allIds.get("Delivered")!, payload: "{}", createdAtMs: Date.now() }), status: "succeeded" as const };
    await deliveriesRepo.recordAttempt(pending, pending, true);
    await deliveriesRepo.recordAttempt(delivered, delivered, true);

    const after = (await unfinishedDeliveries()).filter((m) => m.accountId === a.accountId);

    expect(after.map((m) => [m.deliveryId, m.seq, m.first ? "first run" : "current run"]).sort()).toEqual(
      [
        [idOf("Undelivered"), 0, "first run"],
        [idOf("Pending"), 0, "current run"],
      ].sort(),
    );
  });
});
