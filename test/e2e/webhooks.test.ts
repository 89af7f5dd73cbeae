/**
 * Webhooks end to end in the sandbox: API over HTTP -> outbox -> stream poller (the Pipe) ->
 * events queue -> fan-out -> deliveries queue -> delivery worker -> real receivers on 127.0.0.1.
 * Short schedule and timeout (WEBHOOK_RETRY_SCHEDULE=1,1,1, WEBHOOK_TIMEOUT=1) keep it fast.
 */
import { GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { LOCAL_CREDENTIALS } from "../../infra/local/dynamo.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";

let sandbox: Sandbox;
const receivers: Receiver[] = [];

beforeAll(async () => {
  sandbox = await startTestSandbox("e2e-wh", { env: { WEBHOOK_RETRY_SCHEDULE: "1,1,1", WEBHOOK_TIMEOUT: "1" } });
  // Warm-up: the first event pays the handler modules' imports (a cold start), not the pipeline.
  const warm = await receiver();
  const hook = await createHook(warm.url, ["inbox_created"]);
  await createInbox("Warm-up");
  await warm.waitFor(1, 10_000);
  await call(`/webhooks/${hook.id}`, { method: "DELETE" });
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await sandbox?.stop();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

async function call(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; json: any }> {
  const { accountId, adminApiKey, apiBase } = sandbox.info;
  const res = await fetch(`${apiBase.replace("localhost", "127.0.0.1")}/api/v1/accounts/${accountId}${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", api_access_token: adminApiKey },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const createHook = async (url: string, subscriptions: string[], extra: Record<string, unknown> = {}) => {
  const res = await call("/webhooks", { method: "POST", body: { url, subscriptions, ...extra } });
  expect(res.status).toBe(200);
  return res.json.payload.webhook as { id: number; secret: string };
};
const createInbox = async (name: string) => (await call("/inboxes", { method: "POST", body: { name, channel: { type: "api" } } })).json as { id: number };
const deliveriesOf = async (webhookId: number) => (await call(`/webhooks/${webhookId}/deliveries`)).json as { payload: any[]; meta: any };

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Nothing waiting or in flight on the events and deliveries queues. */
async function queuesEmpty(): Promise<boolean> {
  const sqs = new SQSClient({ endpoint: sandbox.pipeline.sqsEndpoint, region: "us-east-1", credentials: LOCAL_CREDENTIALS });
  try {
    const names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"] as const;
    for (const url of [sandbox.pipeline.queues.events, sandbox.pipeline.queues.deliveries]) {
      const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...names] }));
      if (names.some((n) => Number(a.Attributes?.[n] ?? 0) > 0)) return false;
    }
    return true;
  } finally {
    sqs.destroy();
  }
}

describe("webhooks in the sandbox", () => {
  it("delivers inbox_created signed so that the reference implementation verifies it", async () => {
    const rx = await receiver();
    const hook = await createHook(rx.url, ["inbox_created"]);
    const inbox = await createInbox("Fast lane");
    const [got] = await rx.waitFor(1, 5000);
    expect(got!.json).toMatchObject({ event: "inbox_created", id: String(inbox.id), name: "Fast lane", account: { id: sandbox.info.accountId } });
    const verified = new Webhook(hook.secret).verify(got!.body, got!.headers as Record<string, string>);
    expect(verified).toMatchObject({ event: "inbox_created" });
    expect(got!.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(got!.headers["content-type"]).toBe("application/json");
    const log = await until(async () => {
      const d = await deliveriesOf(hook.id);
      return d.payload[0]?.status === "succeeded" ? d : undefined;
    }, 3000, "the delivery log");
    expect(log.payload[0]).toMatchObject({ id: got!.headers["webhook-id"], event: "inbox_created", attempts: 1, response_status: 200, error: null });
    await call(`/webhooks/${hook.id}`, { method: "DELETE" });
  });

  it("delivers an event whose text has emoji and noncharacters, as sent", async () => {
    const rx = await receiver();
    const hook = await createHook(rx.url, ["inbox_created"]);
    const name = "Suporte 😀 \u{1F1E7}\u{1F1F7} \uffff";
    const inbox = await createInbox(name);
    const [got] = await rx.waitFor(1, 5000);
    expect(got!.json).toMatchObject({ event: "inbox_created", id: String(inbox.id), name });
    expect(got!.body).toContain("Suporte 😀");
    expect(new Webhook(hook.secret).verify(got!.body, got!.headers as Record<string, string>)).toMatchObject({ name });
    await call(`/webhooks/${hook.id}`, { method: "DELETE" });
  });

  it("never sends unsubscribed events, and inbox-scope webhooks get only their inbox", async () => {
    const updatesOnly = await receiver();
    const scoped = await receiver();
    const a = await createInbox("Scoped A");
    const b = await createInbox("Scoped B");
    const h1 = await createHook(updatesOnly.url, ["inbox_updated"]);
    const h2 = await createHook(scoped.url, ["inbox_updated", "inbox_created"], { inbox_id: a.id });
    await createInbox("Noise");
    await call(`/inboxes/${b.id}`, { method: "PATCH", body: { name: "Scoped B2" } });
    await call(`/inboxes/${a.id}`, { method: "PATCH", body: { name: "Scoped A2" } });
    // A later event both must get; once it is in and both queues are empty, every earlier event
    // has been fanned out and delivered: a wrong one would be in too.
    await call(`/inboxes/${a.id}`, { method: "PATCH", body: { name: "Scoped A3" } });
    await updatesOnly.waitFor(1, 5000, (r) => r.json["name"] === "Scoped A3");
    await scoped.waitFor(1, 5000, (r) => r.json["name"] === "Scoped A3");
    await until(async () => ((await queuesEmpty()) ? true : undefined), 5000, "the events and deliveries queues to empty");
    expect(updatesOnly.received.map((r) => r.json.event)).toEqual(["inbox_updated", "inbox_updated", "inbox_updated"]);
    // Fan-out reads the webhooks of the moment it runs, so inbox A's own inbox_created (written
    // just before the webhook) may or may not reach it; nothing of another inbox ever does.
    const scopedEvents = scoped.received.map((r) => [r.json.event, r.json.id]);
    expect(scopedEvents.filter(([event]) => event !== "inbox_created")).toEqual([
      ["inbox_updated", String(a.id)],
      ["inbox_updated", String(a.id)],
    ]);
    expect(scopedEvents.every(([, id]) => id === String(a.id))).toBe(true);
    await call(`/webhooks/${h1.id}`, { method: "DELETE" });
    await call(`/webhooks/${h2.id}`, { method: "DELETE" });
  });

  it("retries a receiver that sleeps past the timeout, without delaying the others", async () => {
    const sleepy = await receiver((n) => (n === 0 ? { status: 200, delayMs: 1500 } : { status: 200 }));
    const fast = await Promise.all([receiver(), receiver(), receiver()]);
    const sleepyHook = await createHook(sleepy.url, ["inbox_created"]);
    const fastHooks = await Promise.all(fast.map((r) => createHook(r.url, ["inbox_created"])));
    await createInbox("Slow and fast");
    const firstFast = await Promise.all(fast.map((r) => r.waitFor(1, 5000)));
    const [first, second] = await sleepy.waitFor(2, 8000);
    // Not held behind it: every fast receiver had the event before the sleepy one's retry.
    for (const [got] of firstFast) expect(got!.at).toBeLessThan(second!.at);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1900); // timeout (1 s) + first step (1 s)
    const log = await until(async () => {
      const d = await deliveriesOf(sleepyHook.id);
      return d.payload[0]?.status === "succeeded" ? d.payload[0] : undefined;
    }, 3000, "the sleepy delivery to succeed");
    expect(log.attempts).toBe(2);
    expect(log.attempt_log[0]).toMatchObject({ attempt: 1, status: "failed", response_status: null });
    expect(log.attempt_log[0].error).toMatch(/timeout/);
    for (const r of fast) expect(r.received).toHaveLength(1);
    for (const h of [sleepyHook, ...fastHooks]) await call(`/webhooks/${h.id}`, { method: "DELETE" });
  });

  it("gives a receiver that is down then up the event with the same webhook-id", async () => {
    const probe = await startReceiver();
    const port = probe.port;
    const url = probe.url;
    await probe.close();
    const hook = await createHook(url, ["inbox_created"]);
    await createInbox("While down");
    const failedOnce = await until(async () => {
      const d = await deliveriesOf(hook.id);
      return d.payload[0]?.attempts >= 1 ? d.payload[0] : undefined;
    }, 5000, "a failed first attempt");
    expect(failedOnce.status).toBe("retrying");
    expect(failedOnce.next_attempt_at).toBeTypeOf("number");
    const up = await receiver(undefined, port);
    const [got] = await up.waitFor(1, 8000);
    expect(got!.headers["webhook-id"]).toBe(failedOnce.id);
    await call(`/webhooks/${hook.id}`, { method: "DELETE" });
  });

  it("marks a delivery failed after the last retry, parks it in the DLQ, and resend delivers it", async () => {
    const rx = await receiver(() => ({ status: 500 }));
    const hook = await createHook(rx.url, ["inbox_created"]);
    await createInbox("Doomed");
    await rx.waitFor(4, 15_000);
    const failed = await until(async () => {
      const d = await deliveriesOf(hook.id);
      return d.payload[0]?.status === "failed" ? d.payload[0] : undefined;
    }, 5000, "the delivery to fail");
    expect(failed).toMatchObject({ attempts: 4, response_status: 500, error: "HTTP 500", next_attempt_at: null });
    expect(failed.attempt_log.map((a: { status: string }) => a.status)).toEqual(["failed", "failed", "failed", "failed"]);
    const sqs = new SQSClient({ endpoint: sandbox.pipeline.sqsEndpoint, region: "us-east-1", credentials: LOCAL_CREDENTIALS });
    await until(async () => {
      const a = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: sandbox.pipeline.queues.deliveriesDlq, AttributeNames: ["ApproximateNumberOfMessages"] }));
      return Number(a.Attributes?.["ApproximateNumberOfMessages"]) >= 1 ? true : undefined;
    }, 5000, "the DLQ");
    sqs.destroy();
    expect(rx.received).toHaveLength(4);

    rx.behaviour = () => ({ status: 200 });
    const resend = await call(`/webhooks/${hook.id}/deliveries/${failed.id}/resend`, { method: "POST" });
    expect(resend.status).toBe(202);
    expect(resend.json.payload.delivery).toMatchObject({ id: failed.id, status: "pending" });
    const [, , , , fifth] = await rx.waitFor(5, 5000);
    expect(fifth!.headers["webhook-id"]).toBe(failed.id);
    const done = await until(async () => {
      const d = await deliveriesOf(hook.id);
      return d.payload[0]?.status === "succeeded" ? d.payload[0] : undefined;
    }, 3000, "the resent delivery");
    expect(done.attempts).toBe(5);
    await call(`/webhooks/${hook.id}`, { method: "DELETE" });
  });
});
