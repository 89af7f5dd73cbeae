/**
 * The pipeline's pieces against DynamoDB Local and fauxqs (in process): the transactional
 * outbox, idempotent fan-out, the delivery worker and its log, resend, pagination.
 */
import { marshall } from "@aws-sdk/util-dynamodb";
import { ReceiveMessageCommand, SQSClient, type Message } from "@aws-sdk/client-sqs";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import type { SQSEvent } from "aws-lambda";
import { startFauxqs } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { db, mainTableName } from "../../shared/db/client.ts";
import { inboxesRepo } from "../../shared/db/inboxes-repo.ts";
import { envelopeFor } from "../../shared/events/envelope.ts";
import { outboxItem } from "../../shared/events/outbox.ts";
import { inboxPayload } from "../../shared/domain/inboxes.ts";
import { LOCAL_CREDENTIALS } from "../../infra/local/dynamo.ts";
import { handler as fanout } from "../../functions/webhooks-fanout.ts";
import { handler as deliver } from "../../functions/webhooks-deliver.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";

let fauxqs: Awaited<ReturnType<typeof startFauxqs>>;
let sqs: SQSClient;
let queueUrl = "";
let a: AccountFixture;
let rx: Receiver;
let inboxId = 0;

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, logger: false, host: "127.0.0.1" });
  queueUrl = fauxqs.createQueue("deliveries").queueUrl;
  Object.assign(process.env, { SQS_ENDPOINT: fauxqs.address, DELIVERY_QUEUE_URL: queueUrl, WEBHOOK_ALLOW_PRIVATE_NETWORK: "true", WEBHOOK_RETRY_SCHEDULE: "2,3", WEBHOOK_TIMEOUT: "1" });
  resetConfig();
  sqs = new SQSClient({ endpoint: fauxqs.address, region: "us-east-1", credentials: LOCAL_CREDENTIALS });
  rx = await startReceiver();
  a = await makeAccount("Deliveries");
  inboxId = (await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.adminKey, body: { name: "Main", channel: { type: "api" } } })).json.id;
});

afterAll(async () => {
  sqs?.destroy();
  await rx?.close();
  await fauxqs?.stop();
});

const hook = async (body: Record<string, unknown>) =>
  (await invoke("webhooks.create", { params: { account_id: a.accountId }, key: a.adminKey, body })).json.payload.webhook as { id: number; secret: string };

/** The events-queue body the Pipe + bus + rule would make of this outbox item's insert. */
function queued(item: ReturnType<typeof outboxItem>, envelopeId: string): string {
  const record = { eventID: "1", eventName: "INSERT", dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }) } };
  const env = envelopeFor(record, { id: envelopeId, account: "1", region: "us-east-1", time: new Date() });
  return JSON.stringify(env);
}

const sqsEvent = (records: { id: string; body: string; receiptHandle?: string; receives?: string }[]): SQSEvent => ({
  Records: records.map((r) => ({
    messageId: r.id, receiptHandle: r.receiptHandle ?? r.id, body: r.body,
    attributes: { ApproximateReceiveCount: r.receives ?? "1" } as SQSEvent["Records"][number]["attributes"],
    messageAttributes: {}, md5OfBody: "", eventSource: "aws:sqs", eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:q", awsRegion: "us-east-1",
  })),
});

async function drain(max = 100): Promise<Message[]> {
  const out: Message[] = [];
  for (;;) {
    const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 30, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
    if (!r.Messages?.length || out.length >= max) return out;
    out.push(...r.Messages);
  }
}

/** As the event-source mapping hands received messages to a worker. */
const asRecords = (ms: Message[]) =>
  ms.map((m) => ({ id: m.MessageId!, body: m.Body!, receiptHandle: m.ReceiptHandle!, receives: m.Attributes?.ApproximateReceiveCount ?? "1" }));

async function outboxCount(): Promise<number> {
  const out = await db().send(new ScanCommand({ TableName: mainTableName(), FilterExpression: "entity = :e", ExpressionAttributeValues: { ":e": "outbox" }, ConsistentRead: true }));
  return out.Items?.length ?? 0;
}

const account = { id: 0, name: "Deliveries", locale: "en", status: "active" as const, created_at: 1, custom_attributes: {} };
const inboxEvent = (id: number, event: "inbox_created" | "inbox_updated" = "inbox_created") =>
  outboxItem(
    inboxPayload(event, { id, account_id: a.accountId, name: `I${id}`, channel_type: "Channel::Api", website_url: null, website_token: null, greeting_enabled: false, greeting_message: null, created_at: 1, updated_at: 1 }, { ...account, id: a.accountId }),
    Date.now(),
  );

describe("transactional outbox", () => {
  it("writes no event when the state change fails, and exactly one when it succeeds", async () => {
    const before = await outboxCount();
    const existing = (await inboxesRepo.getInbox(a.accountId, inboxId))!;
    const event = inboxPayload("inbox_created", existing, { ...account, id: a.accountId });
    await expect(inboxesRepo.insertInbox(existing, [event])).rejects.toThrow();
    expect(await outboxCount()).toBe(before);
    await inboxesRepo.insertInbox({ ...existing, id: 999 }, [inboxPayload("inbox_created", { ...existing, id: 999 }, { ...account, id: a.accountId })]);
    expect(await outboxCount()).toBe(before + 1);
  });
});

describe("fan-out", () => {
  it("creates one delivery per matching webhook, and none twice for the same event", async () => {
    rx.behaviour = () => ({ status: 200 });
    const all = await hook({ url: `${rx.url}?all`, subscriptions: ["inbox_created", "contact_created"] });
    const scoped = await hook({ url: `${rx.url}?scoped`, subscriptions: ["inbox_created", "contact_created"], inbox_id: inboxId });
    const other = await hook({ url: `${rx.url}?other`, subscriptions: ["message_created"] });
    const item = inboxEvent(inboxId);
    const first = await fanout(sqsEvent([{ id: "m1", body: queued(item, "env-1") }]));
    const firstMessages = await drain();
    // The same outbox event again, in other envelopes (at-least-once Pipe / bus / queue).
    const second = await fanout(sqsEvent([{ id: "m2", body: queued(item, "env-2") }, { id: "m3", body: queued(item, "env-3") }]));
    expect(first.batchItemFailures).toEqual([]);
    expect(second.batchItemFailures).toEqual([]);
    expect(firstMessages.map((m) => JSON.parse(m.Body!).webhookId).sort()).toEqual([all.id, scoped.id].sort());
    expect(await drain()).toEqual([]);

    const posted = rx.received.length;
    expect((await deliver(sqsEvent(asRecords(firstMessages)))).batchItemFailures).toEqual([]);
    // A duplicate first-run message (a fan-out repeated before its marker was written) sends nothing.
    expect((await deliver(sqsEvent(asRecords(firstMessages).map((r) => ({ ...r, id: `dup-${r.id}`, receives: "1" }))))).batchItemFailures).toEqual([]);
    expect(rx.received.length).toBe(posted + 2);
    const list = async (id: number) => (await invoke("webhooks.deliveries", { params: { account_id: a.accountId, webhook_id: id }, key: a.adminKey })).json;
    expect((await list(all.id)).payload).toHaveLength(1);
    expect((await list(scoped.id)).payload).toHaveLength(1);
    expect((await list(other.id)).payload).toHaveLength(0);

    // Another inbox's event reaches only the account-scope webhook.
    await fanout(sqsEvent([{ id: "m4", body: queued(inboxEvent(inboxId + 50), "env-4") }]));
    const more = await drain();
    expect(more.map((m) => JSON.parse(m.Body!).webhookId)).toEqual([all.id]);
    for (const h of [all, scoped, other]) await invoke("webhooks.delete", { params: { account_id: a.accountId, webhook_id: h.id }, key: a.adminKey });
  });

  it("reports a malformed record as a batch item failure, without failing the others", async () => {
    const res = await fanout(sqsEvent([{ id: "bad", body: '{"source":"conversa","detail-type":"inbox_created","detail":{}}' }, { id: "ok", body: queued(inboxEvent(inboxId), "env-5") }]));
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: "bad" }]);
    await drain();
  });
});

describe("delivery worker and log", () => {
  it("delivers, records every attempt, schedules retries, honours Retry-After, and resends with the same id", async () => {
    let mode: "503" | "ok" = "503";
    rx.behaviour = () => (mode === "503" ? { status: 503, headers: { "retry-after": "30" } } : { status: 200 });
    const h = await hook({ url: `${rx.url}?worker`, subscriptions: ["inbox_updated"] });
    await fanout(sqsEvent([{ id: "w1", body: queued(inboxEvent(inboxId, "inbox_updated"), "env-w1") }]));
    const [record] = asRecords(await drain());

    const failed = await deliver(sqsEvent([record!]));
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: record!.id }]);
    const list = async () => (await invoke("webhooks.deliveries", { params: { account_id: a.accountId, webhook_id: h.id }, key: a.adminKey })).json.payload[0];
    const d1 = await list();
    expect(d1).toMatchObject({ status: "retrying", attempts: 1, response_status: 503, error: "HTTP 503" });
    // Retry-After 30 s is past the schedule's 2 s step: honoured up to the next step (3 s).
    // (`at` is when the attempt started, in whole seconds: up to a second before it ended.)
    expect(d1.next_attempt_at - d1.attempt_log[0].at).toBeGreaterThanOrEqual(3);
    expect(d1.next_attempt_at - d1.attempt_log[0].at).toBeLessThanOrEqual(4);
    // The message reappears after the visibility the worker set (3 s).
    const again = await (async () => {
      for (let i = 0; i < 30; i++) {
        const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1, VisibilityTimeout: 30, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
        if (r.Messages?.length) return r.Messages[0]!;
      }
      throw new Error("message did not reappear");
    })();
    mode = "ok";
    expect(again.Attributes?.ApproximateReceiveCount).toBe("2");
    const ok = await deliver(sqsEvent(asRecords([again])));
    expect(ok.batchItemFailures).toEqual([]);
    const d2 = await list();
    expect(d2).toMatchObject({ status: "succeeded", attempts: 2, response_status: 200, error: null, next_attempt_at: null });
    expect(d2.attempt_log).toHaveLength(2);
    expect(typeof d2.attempt_log[1].duration_ms).toBe("number");

    // A duplicate of the delivered message is dropped, not re-POSTed.
    const posts = rx.received.length;
    expect((await deliver(sqsEvent([{ id: "dup", body: again.Body!, receives: "3" }]))).batchItemFailures).toEqual([]);
    expect(rx.received.length).toBe(posts);

    const resend = await invoke("webhooks.resend", { params: { account_id: a.accountId, webhook_id: h.id, delivery_id: d2.id }, key: a.adminKey });
    expect(resend.status).toBe(202);
    const [resent] = await drain();
    expect(JSON.parse(resent!.Body!)).toMatchObject({ deliveryId: d2.id, seq: 1 });
    await deliver(sqsEvent([{ id: resent!.MessageId!, body: resent!.Body!, receiptHandle: resent!.ReceiptHandle! }]));
    expect(rx.received.at(-1)!.headers["webhook-id"]).toBe(d2.id);
    expect(await list()).toMatchObject({ status: "succeeded", attempts: 3 });
    // The stale first-run message (seq 0) no longer sends anything.
    expect((await deliver(sqsEvent([{ id: "stale", body: again.Body!, receives: "4" }]))).batchItemFailures).toEqual([]);
    expect(rx.received.length).toBe(posts + 1);
  });

  it("404s resend of an unknown or another webhook's delivery", async () => {
    const h = await hook({ url: `${rx.url}?r404`, subscriptions: ["inbox_updated"] });
    const bogus = await invoke("webhooks.resend", { params: { account_id: a.accountId, webhook_id: h.id, delivery_id: "msg_nope" }, key: a.adminKey });
    expect(bogus.status).toBe(404);
    const unknown = await invoke("webhooks.resend", { params: { account_id: a.accountId, webhook_id: h.id, delivery_id: `msg_${"0".repeat(32)}` }, key: a.adminKey });
    expect(unknown.status).toBe(404);
  });

  it("paginates the log newest first with page/per and an opaque cursor; a non-integer per is 422", async () => {
    rx.behaviour = () => ({ status: 200 });
    const h = await hook({ url: `${rx.url}?pages`, subscriptions: ["inbox_created"] });
    const bodies = Array.from({ length: 27 }, (_, i) => ({ id: `p${i}`, body: queued(inboxEvent(1000 + i), `env-p${i}`) }));
    for (let i = 0; i < bodies.length; i += 9) await fanout(sqsEvent(bodies.slice(i, i + 9)));
    const messages = await drain();
    expect(messages).toHaveLength(27);
    expect((await deliver(sqsEvent(asRecords(messages)))).batchItemFailures).toEqual([]);
    const page = (query: Record<string, string>) => invoke("webhooks.deliveries", { params: { account_id: a.accountId, webhook_id: h.id }, key: a.adminKey, query });
    const p1 = await page({});
    expect(p1.json.payload).toHaveLength(25);
    expect(p1.json.meta).toMatchObject({ count: 27, current_page: 1, per: 25, has_more: true });
    const p2 = await page({ page: "2" });
    expect(p2.json.payload).toHaveLength(2);
    expect(p2.json.meta.has_more).toBe(false);
    const byCursor = await page({ cursor: p1.json.meta.next_cursor });
    expect(byCursor.json.payload.map((d: { id: string }) => d.id)).toEqual(p2.json.payload.map((d: { id: string }) => d.id));
    const all = [...p1.json.payload, ...p2.json.payload].map((d: { created_at: number }) => d.created_at);
    expect([...all].sort((x, y) => y - x)).toEqual(all);
    expect((await page({ per: "1000" })).json.meta.per).toBe(100);
    const bad = await page({ per: "ten" });
    expect(bad.status).toBe(422);
    expect(bad.json.attributes).toEqual(["per"]);
    expect((await page({ page: "9".repeat(20) })).json).toMatchObject({ payload: [], meta: { current_page: 100_000 } });

    // A cursor is this log's own or a 422: never a query DynamoDB refuses (a 500), nor ignored.
    const other = await hook({ url: `${rx.url}?other-log`, subscriptions: ["inbox_created"] });
    const otherLog = JSON.parse(Buffer.from(p1.json.meta.next_cursor, "base64url").toString("utf8")) as Record<string, string>;
    otherLog["gsi1pk"] = otherLog["gsi1pk"]!.replace(new RegExp(`#0*${h.id}$`), `#${String(other.id).padStart(10, "0")}`);
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    for (const cursor of ["zzz", "!!!", b64({ foo: 1 }), b64([1]), b64({ ...otherLog, extra: "x" }), b64(otherLog)]) {
      const res = await page({ cursor });
      expect(res.status, cursor).toBe(422);
      expect(res.json.errors).toEqual([{ field: "cursor", code: "invalid", message: "is invalid" }]);
    }
  });

  it("a delivery the address guard refuses fails at once: failed, blocked_address, no retry scheduled, nothing sent", async () => {
    rx.behaviour = () => ({ status: 200 });
    // Registered by name (a name is checked on the address it resolves to, at delivery).
    const h = await hook({ url: `${rx.url.replace("127.0.0.1", "localhost")}?blocked`, subscriptions: ["inbox_updated"] });
    await fanout(sqsEvent([{ id: "b1", body: queued(inboxEvent(inboxId, "inbox_updated"), "env-b1") }]));
    const records = asRecords(await drain()); // also the earlier hook's delivery of this event
    const posts = rx.received.length;
    Object.assign(process.env, { WEBHOOK_ALLOW_PRIVATE_NETWORK: "false" });
    resetConfig();
    try {
      await deliver(sqsEvent(records));
    } finally {
      Object.assign(process.env, { WEBHOOK_ALLOW_PRIVATE_NETWORK: "true" });
      resetConfig();
    }

    const d = (await invoke("webhooks.deliveries", { params: { account_id: a.accountId, webhook_id: h.id }, key: a.adminKey })).json.payload[0];
    expect(d).toMatchObject({ status: "failed", attempts: 1, response_status: null, error: "blocked_address", next_attempt_at: null });
    expect(d.attempt_log).toHaveLength(1);
    expect(rx.received.length).toBe(posts);
  });
});
