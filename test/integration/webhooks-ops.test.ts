/**
 * Operating webhooks, against DynamoDB Local, fauxqs and real receivers on 127.0.0.1: secret
 * rotation with an overlap window, attempts with the receiver's answer, pending deliveries from
 * the fan-out, test sends, health (disable, skipped), re-enable and recover, pacing.
 */
import { marshall } from "@aws-sdk/util-dynamodb";
import { ReceiveMessageCommand, SQSClient, type Message } from "@aws-sdk/client-sqs";
import { GetCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { SQSEvent } from "aws-lambda";
import { startFauxqs } from "fauxqs";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { deliveryMaxReceiveCount, parseSchedule } from "../../shared/delivery/schedule.ts";
import { setClock } from "../../shared/clock.ts";
import { db, mainTableName } from "../../shared/db/client.ts";
import { keys } from "../../shared/db/keys.ts";
import { envelopeFor } from "../../shared/events/envelope.ts";
import { outboxItem } from "../../shared/events/outbox.ts";
import { inboxPayload } from "../../shared/domain/inboxes.ts";
import { LOCAL_CREDENTIALS } from "../../infra/local/dynamo.ts";
import { handler as fanout } from "../../functions/webhooks-fanout.ts";
import { handler as deliver } from "../../functions/webhooks-deliver.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { startReceiver, type Received, type Receiver } from "../support/receiver.ts";

let fauxqs: Awaited<ReturnType<typeof startFauxqs>>;
let sqs: SQSClient;
let queueUrl = "";
let a: AccountFixture;
const receivers: Receiver[] = [];

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, logger: false, host: "127.0.0.1" });
  // As in the stack: failed-for-good messages go on to a DLQ after maxReceiveCount receives.
  const dlq = fauxqs.createQueue("deliveries-ops-dlq");
  const maxReceiveCount = String(deliveryMaxReceiveCount(parseSchedule("1")));
  queueUrl = fauxqs.createQueue("deliveries-ops", { attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount }) } }).queueUrl;
  Object.assign(process.env, {
    SQS_ENDPOINT: fauxqs.address,
    DELIVERY_QUEUE_URL: queueUrl,
    WEBHOOK_ALLOW_PRIVATE_NETWORK: "true",
    WEBHOOK_RETRY_SCHEDULE: "1",
    WEBHOOK_TIMEOUT: "3",
    WEBHOOK_DISABLE_AFTER_HOURS: "1",
  });
  resetConfig();
  sqs = new SQSClient({ endpoint: fauxqs.address, region: "us-east-1", credentials: LOCAL_CREDENTIALS });
  a = await makeAccount("Ops");
});

afterEach(() => setClock(undefined));

afterAll(async () => {
  sqs?.destroy();
  for (const r of receivers) await r.close();
  await fauxqs?.stop();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

const path = (webhookId: number) => ({ account_id: a.accountId, webhook_id: webhookId });
const call = (route: Parameters<typeof invoke>[0], params: Record<string, string | number>, body?: unknown, query?: Record<string, string>) =>
  invoke(route, { params, key: a.adminKey, ...(body !== undefined ? { body } : {}), ...(query ? { query } : {}) });

interface HookView {
  id: number;
  secret: string;
  status: string;
  disabled_reason: string | null;
  disabled_at: number | null;
  previous_secret_expires_at: number | null;
  rate_limit: number | null;
}
const hook = async (body: Record<string, unknown>): Promise<HookView> => (await call("webhooks.create", { account_id: a.accountId }, body)).json.payload.webhook;
const show = async (id: number): Promise<HookView> => (await call("webhooks.show", path(id))).json.payload.webhook;
const deliveries = async (id: number) => (await call("webhooks.deliveries", path(id), undefined, { per: "100" })).json.payload as { id: string; status: string; attempts: number; event_id: string }[];

const account = { id: 0, name: "Ops", locale: "en", status: "active" as const, created_at: 1, custom_attributes: {} };
let nextInbox = 5000;
/** An inbox_updated outbox event as the events queue hands it to the fan-out. */
function event(accountId = a.accountId): { id: string; body: string } {
  const id = nextInbox++;
  const item = outboxItem(
    inboxPayload("inbox_updated", { id, account_id: accountId, name: `I${id}`, channel_type: "Channel::Api", website_url: null, website_token: null, greeting_enabled: false, greeting_message: null, created_at: 1, updated_at: 1 }, { ...account, id: accountId }),
    Date.now(),
  );
  const record = { eventID: "1", eventName: "INSERT", dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }) } };
  return { id: `e${id}`, body: JSON.stringify(envelopeFor(record, { id: `env-${id}`, account: "1", region: "us-east-1", time: new Date() })) };
}

const sqsEvent = (records: { id: string; body: string; receiptHandle?: string; receives?: string }[]): SQSEvent => ({
  Records: records.map((r) => ({
    messageId: r.id, receiptHandle: r.receiptHandle ?? r.id, body: r.body,
    attributes: { ApproximateReceiveCount: r.receives ?? "1" } as SQSEvent["Records"][number]["attributes"],
    messageAttributes: {}, md5OfBody: "", eventSource: "aws:sqs", eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:q", awsRegion: "us-east-1",
  })),
});
const asRecords = (ms: Message[]) => ms.map((m) => ({ id: m.MessageId!, body: m.Body!, receiptHandle: m.ReceiptHandle!, receives: m.Attributes?.ApproximateReceiveCount ?? "1" }));

async function receive(waitSeconds = 0): Promise<Message[]> {
  const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: waitSeconds, VisibilityTimeout: 30, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
  return r.Messages ?? [];
}

/** As the event-source mapping would: receive and hand batches to the worker until `until()` or the timeout. */
async function pump(until: () => boolean, timeoutMs: number, lanes = 1): Promise<void> {
  const end = Date.now() + timeoutMs;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (!until() && Date.now() < end) {
        const ms = await receive(1);
        if (ms.length) await deliver(sqsEvent(asRecords(ms)));
      }
    }),
  );
}

/** Delivers whatever is in the queue now and what reappears within `settleMs` (a failed-for-good message keeps reappearing: bounded). */
async function deliverAll(settleMs = 0): Promise<void> {
  const end = Date.now() + settleMs;
  const hardEnd = end + 3_000;
  while (Date.now() < hardEnd) {
    const ms = await receive(settleMs > 0 ? 1 : 0);
    if (ms.length) await deliver(sqsEvent(asRecords(ms)));
    else if (Date.now() >= end) return;
  }
}

const headersOf = (r: Received): Record<string, string> => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
const verifies = (secret: string, r: Received): boolean => {
  try {
    new StandardWebhook(secret).verify(r.body, headersOf(r));
    return true;
  } catch {
    return false;
  }
};

describe("secret rotation with an overlap window", () => {
  it("signs with both secrets inside the window, only the new one after it; 409 on a second rotation unless force", async () => {
    const rx = await receiver();
    const h = await hook({ url: `${rx.url}?rotate`, subscriptions: ["inbox_updated"] });
    expect(h.previous_secret_expires_at).toBeNull();
    const oldSecret = h.secret;

    const rotated = await call("webhooks.reset_secret", path(h.id), { grace_seconds: 600 });
    expect(rotated.status).toBe(200);
    const w = rotated.json.payload.webhook as HookView;
    const newSecret = w.secret;
    expect(newSecret).not.toBe(oldSecret);
    expect(w.previous_secret_expires_at! - Math.floor(Date.now() / 1000)).toBeGreaterThan(590);
    expect(w).not.toHaveProperty("previous_secret");

    // Inside the window: every delivery verifies with the old secret and with the new one.
    await fanout(sqsEvent([event(), event(), event()]));
    await deliverAll();
    const inside = await rx.waitFor(3, 10_000);
    for (const r of inside) {
      expect(String(r.headers["webhook-signature"]).split(" ")).toHaveLength(2);
      expect(verifies(oldSecret, r)).toBe(true);
      expect(verifies(newSecret, r)).toBe(true);
    }

    // A second rotation inside the window: 409, nothing changed; force rotates and ends the
    // old window (the first secret is dropped, the second one gets a new short window).
    const again = await call("webhooks.reset_secret", path(h.id), {});
    expect(again.status).toBe(409);
    expect(again.json).toEqual({
      error: "A secret rotation is in progress (the previous secret is still valid); pass force:true to end it",
      code: "rotation_in_progress",
    });
    expect((await show(h.id)).secret).toBe(newSecret);
    const forced = await call("webhooks.reset_secret", path(h.id), { force: true, grace_seconds: 2 });
    expect(forced.status).toBe(200);
    const thirdSecret = forced.json.payload.webhook.secret as string;

    // After that window: only the newest secret verifies.
    await new Promise((r) => setTimeout(r, 2_200));
    expect((await show(h.id)).previous_secret_expires_at).toBeNull();
    await fanout(sqsEvent([event()]));
    await deliverAll();
    const [after] = (await rx.waitFor(4, 10_000)).slice(3);
    expect(String(after!.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verifies(thirdSecret, after!)).toBe(true);
    expect(verifies(newSecret, after!)).toBe(false);
    expect(verifies(oldSecret, after!)).toBe(false);

    // No window running: rotating is allowed again, with the default window of a day; grace 0 keeps none.
    const fourth = (await call("webhooks.reset_secret", path(h.id))).json.payload.webhook as HookView;
    expect(fourth.previous_secret_expires_at! - Math.floor(Date.now() / 1000)).toBeGreaterThan(86_000);
    const none = await call("webhooks.reset_secret", path(h.id), { force: true, grace_seconds: 0 });
    expect(none.json.payload.webhook.previous_secret_expires_at).toBeNull();
  });

  it("422s a grace outside 0..604800", async () => {
    const rx = await receiver();
    const h = await hook({ url: `${rx.url}?grace`, subscriptions: ["inbox_updated"] });
    const bad = await call("webhooks.reset_secret", path(h.id), { grace_seconds: 604_801 });
    expect(bad.status).toBe(422);
    expect(bad.json.attributes).toEqual(["grace_seconds"]);
    // Form-style values, as Rails casts them: digits for the grace, "true" for force.
    const cast = await call("webhooks.reset_secret", path(h.id), { grace_seconds: "600" });
    expect(cast.json.payload.webhook.previous_secret_expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(590);
    const forced = await call("webhooks.reset_secret", path(h.id), { force: "true", grace_seconds: "0" });
    expect([forced.status, forced.json.payload.webhook.previous_secret_expires_at]).toEqual([200, null]);
  });
});

describe("the delivery log", () => {
  it("lists a delivery as pending from the fan-out on, and keeps every attempt with the receiver's answer", async () => {
    let n = 0;
    const rx = await receiver(() => (n++ === 0 ? { status: 500, body: `oops ${"x".repeat(2000)}` } : { status: 200, body: '{"ok":true}' }));
    const h = await hook({ url: `${rx.url}?attempts`, subscriptions: ["inbox_updated"] });
    await fanout(sqsEvent([event()]));
    const [pending] = await deliveries(h.id);
    expect(pending).toMatchObject({ status: "pending", attempts: 0 });

    await deliverAll(4_000);
    const [done] = await deliveries(h.id);
    expect(done).toMatchObject({ status: "succeeded", attempts: 2 });
    const attempts = await call("webhooks.attempts", { ...path(h.id), delivery_id: done!.id });
    expect(attempts.status).toBe(200);
    const log = attempts.json.payload as { attempt: number; response_status: number; response_body: string; error: string | null; duration_ms: number }[];
    expect(log.map((x) => [x.attempt, x.response_status, x.error])).toEqual([[1, 500, "HTTP 500"], [2, 200, null]]);
    expect(log[0]!.response_body).toBe(`oops ${"x".repeat(1019)}`);
    expect(log[1]!.response_body).toBe('{"ok":true}');
    expect(log.every((x) => typeof x.duration_ms === "number")).toBe(true);

    const unknown = await call("webhooks.attempts", { ...path(h.id), delivery_id: `msg_${"0".repeat(32)}` });
    expect(unknown.status).toBe(404);
  });
});

describe("test sends", () => {
  it("sends one signed sample of a subscribed event, marked as a test; 422 for an event it does not subscribe", async () => {
    const rx = await receiver();
    const h = await hook({ url: `${rx.url}?test`, subscriptions: ["message_created"] });
    const sent = await call("webhooks.test", path(h.id), { event: "message_created" });
    expect(sent.status).toBe(202);
    expect(sent.json.payload.delivery).toMatchObject({ event: "message_created", status: "pending", test: true });
    await deliverAll();
    const [r] = await rx.waitFor(1, 10_000);
    expect(r!.headers["webhook-test"]).toBe("true");
    expect(r!.headers["webhook-id"]).toBe(sent.json.payload.delivery.id);
    expect(r!.json).toMatchObject({ event: "message_created", test: true });
    expect(verifies(h.secret, r!)).toBe(true);

    const notSubscribed = await call("webhooks.test", path(h.id), { event: "contact_created" });
    expect(notSubscribed.status).toBe(422);
    expect(notSubscribed.json.attributes).toEqual(["event"]);
  });
});

describe("health, re-enable and recover", () => {
  it("disables a receiver failing for WEBHOOK_DISABLE_AFTER_HOURS, logs events as skipped, and recovers them all once", { timeout: 90_000 }, async () => {
    let up = false;
    const rx = await receiver(() => (up ? { status: 200 } : { status: 503 }));
    const h = await hook({ url: `${rx.url}?dead`, subscriptions: ["inbox_updated"] });
    const since = Math.floor(Date.now() / 1000) - 1;
    let offsetMs = 0;
    setClock(() => Date.now() + offsetMs);

    // First failure: the run of failures starts (one write); the webhook stays active.
    await fanout(sqsEvent([event()]));
    await deliverAll(3_000);
    expect((await show(h.id)).status).toBe("active");

    // Two hours later (threshold: one hour), the next failure disables it.
    offsetMs = 2 * 3600 * 1000;
    await fanout(sqsEvent([event()]));
    await deliverAll(3_000);
    const disabled = await show(h.id);
    expect(disabled.status).toBe("disabled");
    expect(disabled.disabled_reason).toMatch(/failed for 1 hours/);
    expect(disabled.disabled_at).toBeGreaterThan(since);
    const ops = await db().send(new ScanCommand({ TableName: mainTableName(), FilterExpression: "#e = :e", ExpressionAttributeNames: { "#e": "event" }, ExpressionAttributeValues: { ":e": "webhook_disabled" }, ConsistentRead: true }));
    expect(ops.Items?.map((i) => JSON.parse(String(i["payload"])).id)).toEqual([String(h.id)]);

    // While disabled: events are logged as skipped, nothing is sent.
    const posts = rx.received.length;
    await fanout(sqsEvent([event(), event()]));
    await deliverAll();
    expect(rx.received.length).toBe(posts);
    const before = await deliveries(h.id);
    expect(before).toHaveLength(4);
    expect(before.map((d) => d.status).sort()).toEqual(["failed", "skipped", "skipped", "skipped"]);

    // Recovering or resending while still disabled would only skip them again: refused, nothing queued.
    const early = await call("webhooks.recover", path(h.id), { since });
    expect([early.status, early.json]).toEqual([409, { error: "The webhook is disabled: turn it on (status active), then recover", code: "webhook_disabled" }]);
    const resend = await call("webhooks.resend", { ...path(h.id), delivery_id: before[0]!.id });
    expect([resend.status, resend.json.code]).toEqual([409, "webhook_disabled"]);

    // Back up, re-enabled, recovered: every failed or skipped delivery arrives once.
    up = true;
    const patched = await call("webhooks.update", path(h.id), { status: "active" });
    expect(patched.json.payload.webhook).toMatchObject({ status: "active", disabled_reason: null, disabled_at: null });
    // Two calls at once: one runs the window, the other does not queue it again.
    const body = { since, until: Math.floor((Date.now() + offsetMs) / 1000) };
    const [r1, r2] = await Promise.all([call("webhooks.recover", path(h.id), body), call("webhooks.recover", path(h.id), body)]);
    expect([r1.status, r2.status]).toEqual([202, 202]);
    expect(Math.max(r1.json.recovered, r2.json.recovered)).toBe(4);
    await deliverAll(2_000);
    const ids = new Set(before.map((d) => d.id));
    const redelivered = rx.received.slice(posts).filter((r) => ids.has(String(r.headers["webhook-id"])));
    expect(redelivered.map((r) => r.headers["webhook-id"]).sort()).toEqual([...ids].sort());
    expect((await deliveries(h.id)).every((d) => d.status === "succeeded")).toBe(true);
    // The same window again: nothing left to recover.
    expect((await call("webhooks.recover", path(h.id), body)).json).toEqual({ recovered: 0 });
  });

  it("writes the webhook only on a health transition, never per delivery in a steady state", async () => {
    let failing = false;
    const rx = await receiver(() => ({ status: failing ? 500 : 200 }));
    const b = await makeAccount("Health writes");
    const h = (await invoke("webhooks.create", { params: { account_id: b.accountId }, key: b.adminKey, body: { url: `${rx.url}?steady`, subscriptions: ["inbox_updated"] } })).json.payload.webhook as HookView;
    const rev = async () => (await db().send(new GetCommand({ TableName: mainTableName(), Key: keys.webhook(b.accountId, h.id), ConsistentRead: true }))).Item?.["rev"];
    const burst = async (n: number) => {
      await fanout(sqsEvent(Array.from({ length: n }, () => event(b.accountId))));
      await deliverAll();
    };
    const r0 = await rev();
    await burst(10);
    expect(await rev()).toBe(r0); // all succeeding: no write
    failing = true;
    await burst(10);
    const r1 = await rev();
    expect(r1).not.toBe(r0); // success -> failure: one write (failing_since)
    await burst(10);
    expect(await rev()).toBe(r1); // still failing, run recorded: no write
    failing = false;
    await burst(5);
    const r2 = await rev();
    expect(r2).not.toBe(r1); // failure -> success: one write (cleared)
    await burst(5);
    expect(await rev()).toBe(r2);
  });

    it("422s a window that ends before it starts", async () => {
    const rx = await receiver();
    const h = await hook({ url: `${rx.url}?window`, subscriptions: ["inbox_updated"] });
    const bad = await call("webhooks.recover", path(h.id), { since: 2000, until: 1000 });
    expect(bad.status).toBe(422);
    expect(bad.json.attributes).toEqual(["until"]);
    // Unix seconds as digits (a form field, as Rails casts it) are a time like the number.
    const digits = await call("webhooks.recover", path(h.id), { since: "1000", until: "2000" });
    expect([digits.status, digits.json]).toEqual([202, { recovered: 0 }]);
  });
});

describe("pacing", () => {
  it("delivers 60 events to a receiver with rate_limit 4 at no more than 4 per second, none lost, without slowing another receiver", { timeout: 120_000 }, async () => {
    const paced = await receiver();
    const free = await receiver();
    const b = await makeAccount("Pacing");
    const create = async (body: Record<string, unknown>): Promise<HookView> =>
      (await invoke("webhooks.create", { params: { account_id: b.accountId }, key: b.adminKey, body })).json.payload.webhook;
    const hp = await create({ url: `${paced.url}?paced`, subscriptions: ["inbox_updated"], rate_limit: 4 });
    expect(hp.rate_limit).toBe(4);
    await create({ url: `${free.url}?free`, subscriptions: ["inbox_updated"] });
    const events = Array.from({ length: 60 }, () => event(b.accountId));
    const started = Date.now();
    for (let i = 0; i < events.length; i += 10) await fanout(sqsEvent(events.slice(i, i + 10)));
    await pump(() => paced.received.length >= 60 && free.received.length >= 60, 90_000, 3);

    expect(new Set(paced.received.map((r) => r.headers["webhook-id"])).size).toBe(60);
    expect(new Set(free.received.map((r) => r.headers["webhook-id"])).size).toBe(60);
    // Counted at the receiver, per second of the signed `webhook-timestamp` (the second the
    // limiter counted the delivery in): never more than 4. Arrival times are reported too: on a
    // loaded machine the event loop of this one process (worker, queue, receiver) may hold a
    // request past its second, which a deployed worker does not.
    const perSecond = (at: (r: Received) => number) => {
      const buckets = new Map<number, number>();
      for (const r of paced.received) buckets.set(at(r), (buckets.get(at(r)) ?? 0) + 1);
      return [...buckets.entries()].sort((x, y) => x[0] - y[0]).map(([, n]) => n);
    };
    const stamped = perSecond((r) => Number(r.headers["webhook-timestamp"]));
    const arrived = perSecond((r) => Math.floor(r.at / 1000));
    console.log(`pacing: per stamped second ${stamped.join(" ")}; per arrival second ${arrived.join(" ")}`);
    expect(Math.max(...stamped)).toBeLessThanOrEqual(4);
    const pacedSpan = Math.max(...paced.received.map((r) => r.at)) - started;
    const freeSpan = Math.max(...free.received.map((r) => r.at)) - started;
    // 60 deliveries at 4 a second take 15 distinct seconds. The pace is set well under what a loaded
    // machine delivers, so that the unpaced receiver's lead measures the pacing, not the machine.
    expect(pacedSpan).toBeGreaterThanOrEqual(14_000);
    // The unpaced receiver is done first: its deliveries never wait behind the paced ones (the
    // bench measures by how much: webhook bench, scenario "paced").
    expect(freeSpan).toBeLessThan(pacedSpan);
    console.log(`pacing: paced receiver ${pacedSpan} ms, unpaced ${freeSpan} ms`);
  });
});
