/**
 * The delivery worker's EMF metrics: one line per attempt, DeliverySucceeded /
 * DeliveryRetried / DeliveryFailed plus DeliveryLatency, in METRICS_NAMESPACE; nothing for
 * messages that made no request. Real worker, DynamoDB Local, fauxqs, a receiver on 127.0.0.1.
 */
import { marshall } from "@aws-sdk/util-dynamodb";
import { ReceiveMessageCommand, SQSClient, type Message } from "@aws-sdk/client-sqs";
import type { SQSEvent } from "aws-lambda";
import { startFauxqs } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { envelopeFor } from "../../shared/events/envelope.ts";
import { outboxItem } from "../../shared/events/outbox.ts";
import { inboxPayload } from "../../shared/domain/inboxes.ts";
import { LOCAL_CREDENTIALS } from "../../infra/local/dynamo.ts";
import { handler as fanout } from "../../functions/webhooks-fanout.ts";
import { handler as deliver } from "../../functions/webhooks-deliver.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";

const NAMESPACE = "Conversa/test";
let fauxqs: Awaited<ReturnType<typeof startFauxqs>>;
let sqs: SQSClient;
let queueUrl = "";
let a: AccountFixture;
let rx: Receiver;

beforeAll(async () => {
  fauxqs = await startFauxqs({ port: 0, logger: false, host: "127.0.0.1" });
  queueUrl = fauxqs.createQueue("deliveries-metrics").queueUrl;
  Object.assign(process.env, {
    SQS_ENDPOINT: fauxqs.address,
    DELIVERY_QUEUE_URL: queueUrl,
    WEBHOOK_ALLOW_PRIVATE_NETWORK: "true",
    WEBHOOK_RETRY_SCHEDULE: "1",
    WEBHOOK_TIMEOUT: "1",
    METRICS_NAMESPACE: NAMESPACE,
  });
  resetConfig();
  sqs = new SQSClient({ endpoint: fauxqs.address, region: "us-east-1", credentials: LOCAL_CREDENTIALS });
  rx = await startReceiver((_n, req) => ({ status: req.body.includes('"name":"fails"') ? 500 : 200 }));
  a = await makeAccount("Metrics");
});

afterAll(async () => {
  vi.useRealTimers();
  sqs?.destroy();
  await rx?.close();
  await fauxqs?.stop();
});

const sqsEvent = (ms: readonly Message[], receives?: string): SQSEvent => ({
  Records: ms.map((m) => ({
    messageId: m.MessageId!, receiptHandle: m.ReceiptHandle!, body: m.Body!,
    attributes: { ApproximateReceiveCount: receives ?? m.Attributes?.ApproximateReceiveCount ?? "1" } as SQSEvent["Records"][number]["attributes"],
    messageAttributes: {}, md5OfBody: "", eventSource: "aws:sqs", eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:q", awsRegion: "us-east-1",
  })),
});

async function drain(): Promise<Message[]> {
  const r = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 30, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }));
  return r.Messages ?? [];
}

/** One inbox_created event (inbox named `name`) fanned out to the account's webhooks; the deliveries queue's messages. */
async function fannedOut(name: string, id: number): Promise<Message[]> {
  const account = { id: a.accountId, name: "Metrics", locale: "en", status: "active" as const, created_at: 1, custom_attributes: {} };
  const inbox = { id, account_id: a.accountId, name, channel_type: "Channel::Api", website_url: null, website_token: null, greeting_enabled: false, greeting_message: null, created_at: 1, updated_at: 1 };
  const item = outboxItem(inboxPayload("inbox_created", inbox, account), Date.now());
  const record = { eventID: "1", eventName: "INSERT", dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }) } };
  const body = JSON.stringify(envelopeFor(record, { id: `env-${name}`, account: "1", region: "us-east-1", time: new Date() }));
  await fanout({ Records: [{ ...sqsEvent([{ MessageId: `e-${name}`, ReceiptHandle: `e-${name}`, Body: body }]).Records[0]! }] });
  return drain();
}

/** The EMF lines `fn` printed. */
async function emf(fn: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const lines = vi.spyOn(console, "log");
  try {
    await fn();
    return lines.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, any>);
  } finally {
    lines.mockRestore();
  }
}

const names = (line: Record<string, any>) => (line._aws.CloudWatchMetrics[0].Metrics as { Name: string }[]).map((m) => m.Name);

describe("delivery metrics", () => {
  it("emits succeeded, retried then failed, each with the latency, and nothing for a message that sent nothing", async () => {
    await invoke("webhooks.create", { params: { account_id: a.accountId }, key: a.adminKey, body: { url: `${rx.url}/m`, subscriptions: ["inbox_created"] } });

    const ok = await emf(async () => deliver(sqsEvent(await fannedOut("works", 1))));
    expect(ok).toHaveLength(1);
    expect(names(ok[0]!)).toEqual(["DeliverySucceeded", "DeliveryLatency"]);
    expect(ok[0]).toMatchObject({ DeliverySucceeded: 1, _aws: { CloudWatchMetrics: [{ Namespace: NAMESPACE, Dimensions: [[]] }] } });
    expect(ok[0]!.DeliveryLatency).toEqual(expect.any(Number));
    expect(ok[0]!._aws.CloudWatchMetrics[0].Metrics).toEqual([
      { Name: "DeliverySucceeded", Unit: "Count" },
      { Name: "DeliveryLatency", Unit: "Milliseconds" },
    ]);

    const [failing] = await fannedOut("fails", 2);
    const first = await emf(() => deliver(sqsEvent([failing!])));
    expect(first.map(names)).toEqual([["DeliveryRetried", "DeliveryLatency"]]);

    // Early (the 1 s step is not over): put back, no request, no metric.
    expect(await emf(() => deliver(sqsEvent([failing!], "2")))).toEqual([]);

    // The schedule's only retry, once due (the clock moved on, no sleep): failed for good.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 2_000 });
    const last = await emf(() => deliver(sqsEvent([failing!], "2")));
    vi.useRealTimers();
    expect(last.map(names)).toEqual([["DeliveryFailed", "DeliveryLatency"]]);
    expect(last[0]).toMatchObject({ DeliveryFailed: 1 });
    expect(rx.received.filter((r) => r.body.includes('"name":"fails"'))).toHaveLength(2);
  });
});
