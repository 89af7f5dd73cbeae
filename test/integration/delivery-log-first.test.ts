/**
 * A delivery's log record exists before its first POST: a crash in the middle of sending leaves
 * a pending record that a restart drives again with the same webhook-id, never a request with
 * no record.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setConfig } from "../../shared/config.ts";
import { deliveriesRepo } from "../../shared/db/webhooks-repo.ts";
import { attemptDelivery, deliveryIdFor, type Delivery } from "../../shared/domain/deliveries.ts";
import { postJson } from "../../shared/delivery/sender.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";

let a: AccountFixture;
let rx: Receiver;
let webhookId: number;

beforeAll(async () => {
  // The receiver is on 127.0.0.1: registration refuses loopback urls unless private networks are allowed.
  setConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORK: "true" });
  rx = await startReceiver();
  a = await makeAccount("Log first");
  const created = await invoke("webhooks.create", { params: { account_id: a.accountId }, key: a.adminKey, body: { url: rx.url, subscriptions: ["contact_created"] } });
  webhookId = created.json.payload.webhook.id;
});

afterAll(async () => {
  await rx?.close();
});

describe("the delivery log and the POST", () => {
  it("writes the pending record before sending, then the attempt", async () => {
    const eventId = randomUUID();
    const deliveryId = deliveryIdFor(eventId, a.accountId, webhookId);
    const atSend: (Delivery | undefined)[] = [];
    const payload = JSON.stringify({ event: "contact_created", id: "1" });

    const outcome = await attemptDelivery(
      {
        store: deliveriesRepo,
        schedule: [1],
        nowMs: Date.now,
        send: async (url, body, headers) => {
          atSend.push(await deliveriesRepo.getDelivery(deliveryId));
          return postJson(url, body, headers, { timeoutMs: 2000, allowPrivate: true });
        },
      },
      { deliveryId, accountId: a.accountId, webhookId, seq: 0, first: { event: "contact_created", eventId, payload, createdAtMs: Date.now() } },
    );

    expect(outcome.kind).toBe("done");
    expect(atSend.map((d) => d && { status: d.status, attempts: d.attempts })).toEqual([{ status: "pending", attempts: 0 }]);
    expect(await deliveriesRepo.getDelivery(deliveryId)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(rx.received.map((r) => r.headers["webhook-id"])).toEqual([deliveryId]);
  });
});
