/**
 * The sandbox's event pipeline (DESIGN.md, Local sandbox), with fauxqs for SQS:
 * - the Pipe's job: a poller on the main table's stream that applies the Pipe's filter, builds
 *   the envelope Pipe + bus make (shared/events/envelope.ts, the same definitions the CDK stack
 *   uses), applies the rule and puts it on the events queue;
 * - the Lambda event-source mapping's job: pollers that hand SQS batches to the real worker
 *   handler modules and delete only the successes (`batchItemFailures`); failures reappear per
 *   their visibility, and past maxReceiveCount SQS moves them to the DLQ.
 */
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { LocalAws } from "./fauxqs.ts";
import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from "@aws-sdk/client-dynamodb-streams";
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient, type Message } from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { config, resetConfig } from "../../shared/config.ts";
import { deliveryMaxReceiveCount, parseSchedule } from "../../shared/delivery/schedule.ts";
import { envelopeFor, matchesPattern, RULE_PATTERN } from "../../shared/events/envelope.ts";
import { resetSqs } from "../../shared/queue/sqs.ts";
import { localClient, LOCAL_CREDENTIALS } from "./dynamo.ts";

export interface PipelineOptions {
  readonly dynamoEndpoint: string;
  /** The sandbox's one fauxqs instance (also serving S3); its owner stops it. */
  readonly aws: LocalAws;
  readonly tableName: string;
  /** Stream poll interval (ms). */
  readonly pollMs?: number;
}

export interface Pipeline {
  readonly sqsEndpoint: string;
  readonly queues: { readonly events: string; readonly eventsDlq: string; readonly deliveries: string; readonly deliveriesDlq: string };
  stop(): Promise<void>;
}

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

function loadHandler(fn: string): Promise<SqsHandler> {
  const url = pathToFileURL(resolve(import.meta.dirname, "../../functions", `${fn}.ts`)).href;
  return import(url).then((m: { handler: SqsHandler }) => m.handler);
}

const REGION = "us-east-1";
const ACCOUNT = "000000000000";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startPipeline(opts: PipelineOptions): Promise<Pipeline> {
  const server = opts.aws.server;
  const schedule = parseSchedule(config().WEBHOOK_RETRY_SCHEDULE);
  const eventsDlq = server.createQueue("conversa-events-dlq");
  const deliveriesDlq = server.createQueue("conversa-deliveries-dlq");
  const events = server.createQueue("conversa-events", {
    attributes: { VisibilityTimeout: "60", RedrivePolicy: JSON.stringify({ deadLetterTargetArn: eventsDlq.queueArn, maxReceiveCount: 5 }) },
  });
  const deliveries = server.createQueue("conversa-deliveries", {
    attributes: {
      VisibilityTimeout: "60",
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deliveriesDlq.queueArn, maxReceiveCount: deliveryMaxReceiveCount(schedule) }),
    },
  });
  Object.assign(process.env, { SQS_ENDPOINT: server.address, EVENTS_QUEUE_URL: events.queueUrl, DELIVERY_QUEUE_URL: deliveries.queueUrl });
  resetConfig();
  resetSqs();

  const sqs = new SQSClient({ endpoint: server.address, region: REGION, credentials: LOCAL_CREDENTIALS });
  const abort = new AbortController();
  const loops: Promise<void>[] = [];
  const stopped = () => abort.signal.aborted;
  const wakers = new Set<() => void>();
  /** Handler invocations under way: stop() lets them finish before the stores go away. */
  const running = new Set<Promise<void>>();

  // The Pipe: stream -> filter -> envelope -> rule -> events queue.
  const ddb = localClient(opts.dynamoEndpoint);
  const streams = new DynamoDBStreamsClient({ endpoint: opts.dynamoEndpoint, region: REGION, credentials: LOCAL_CREDENTIALS });
  const streamArn = (await ddb.send(new DescribeTableCommand({ TableName: opts.tableName }))).Table?.LatestStreamArn;
  ddb.destroy();
  if (!streamArn) throw new Error(`table ${opts.tableName} has no stream`);
  const iterators = new Map<string, { iterator?: string; lastSeq?: string }>();

  async function discover(initial: boolean): Promise<void> {
    let start: string | undefined;
    do {
      const d = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      for (const shard of d.StreamDescription?.Shards ?? []) {
        const id = shard.ShardId!;
        if (iterators.has(id)) continue;
        // Closed before we started: known, never read (reading it from TRIM_HORIZON would replay history).
        if (initial && shard.SequenceNumberRange?.EndingSequenceNumber) {
          iterators.set(id, {});
          continue;
        }
        const it = await streams.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: id, ShardIteratorType: initial ? "LATEST" : "TRIM_HORIZON" }),
        );
        iterators.set(id, { ...(it.ShardIterator ? { iterator: it.ShardIterator } : {}) });
      }
      start = d.StreamDescription?.LastEvaluatedShardId;
    } while (start);
  }

  async function reacquire(shardId: string, lastSeq: string | undefined): Promise<void> {
    const it = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(lastSeq ? { ShardIteratorType: "AFTER_SEQUENCE_NUMBER", SequenceNumber: lastSeq } : { ShardIteratorType: "LATEST" }),
      }),
    );
    iterators.set(shardId, { ...(it.ShardIterator ? { iterator: it.ShardIterator } : {}), ...(lastSeq ? { lastSeq } : {}) });
  }

  function toQueueBodies(records: readonly StreamRecord[]): string[] {
    const out: string[] = [];
    for (const r of records) {
      const env = envelopeFor(JSON.parse(JSON.stringify(r)), { id: randomUUID(), account: ACCOUNT, region: REGION, time: new Date() });
      if (env && matchesPattern(RULE_PATTERN, env)) out.push(JSON.stringify(env));
    }
    return out;
  }

  await discover(true);
  loops.push(
    (async () => {
      let tick = 0;
      while (!stopped()) {
        try {
          if (++tick % 20 === 0) await discover(false);
          await Promise.all([...iterators].map(async ([shardId, state]) => {
            if (!state.iterator) return;
            try {
              const got = await streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 1000 }));
              const records = got.Records ?? [];
              const lastSeq = records.at(-1)?.dynamodb?.SequenceNumber ?? state.lastSeq;
              const bodies = toQueueBodies(records);
              for (let i = 0; i < bodies.length; i += 10) {
                await sqs.send(
                  new SendMessageBatchCommand({ QueueUrl: events.queueUrl, Entries: bodies.slice(i, i + 10).map((b, j) => ({ Id: String(j), MessageBody: b })) }),
                );
              }
              iterators.set(shardId, { ...(got.NextShardIterator ? { iterator: got.NextShardIterator } : {}), ...(lastSeq ? { lastSeq } : {}) });
            } catch (err) {
              if (stopped()) return;
              if ((err as { name?: string }).name === "ExpiredIteratorException") await reacquire(shardId, state.lastSeq);
              else throw err;
            }
          }));
        } catch (err) {
          if (stopped()) return;
          console.error(JSON.stringify({ level: "error", message: "sandbox stream poller", error: String(err) }));
        }
        await sleep(opts.pollMs ?? 50);
      }
    })(),
  );

  // The event-source mappings: queue -> handler module, partial batch failures honoured.
  function pollQueue(queueUrl: string, queueArn: string, fn: string, batchSize: number, maxInFlight: number): Promise<void> {
    const handler = loadHandler(fn);
    let inFlight = 0;
    let wake: (() => void) | undefined;
    const invoke = async (messages: Message[]) => {
      const event: SQSEvent = {
        Records: messages.map((m) => ({
          messageId: m.MessageId!,
          receiptHandle: m.ReceiptHandle!,
          body: m.Body ?? "",
          attributes: (m.Attributes ?? {}) as unknown as SQSEvent["Records"][number]["attributes"],
          messageAttributes: {},
          md5OfBody: m.MD5OfBody ?? "",
          eventSource: "aws:sqs",
          eventSourceARN: queueArn,
          awsRegion: REGION,
        })),
      };
      const context = { functionName: fn, awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
      let failed: Set<string>;
      try {
        const res = await (await handler)(event, context);
        failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      } catch (err) {
        console.error(JSON.stringify({ level: "error", message: `sandbox ${fn} threw`, error: String(err) }));
        return; // the whole batch reappears after its visibility timeout
      }
      const done = messages.filter((m) => !failed.has(m.MessageId!));
      if (done.length && !stopped()) {
        await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
      }
    };
    return (async () => {
      while (!stopped()) {
        if (inFlight >= maxInFlight) {
          await new Promise<void>((r) => {
            wake = r;
            wakers.add(r);
          });
          continue;
        }
        try {
          const out = await sqs.send(
            new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: batchSize, WaitTimeSeconds: 1, MessageSystemAttributeNames: ["All"] }),
            { abortSignal: abort.signal },
          );
          if (!out.Messages?.length) continue;
          inFlight++;
          const p: Promise<void> = invoke(out.Messages)
            .catch((err: unknown) => console.error(JSON.stringify({ level: "error", message: `sandbox ${fn} poller`, error: String(err) })))
            .finally(() => {
              running.delete(p);
              inFlight--;
              wake?.();
              wake = undefined;
            });
          running.add(p);
        } catch (err) {
          if (stopped()) return;
          console.error(JSON.stringify({ level: "error", message: `sandbox ${fn} receive`, error: String(err) }));
          await sleep(200);
        }
      }
    })();
  }

  // Lambda scales an SQS mapping out to many concurrent invocations; a batch holding a slow
  // receiver keeps its invocation until WEBHOOK_TIMEOUT, so the delivery side gets many slots.
  loops.push(pollQueue(events.queueUrl, events.queueArn, "webhooks-fanout", 10, 8));
  loops.push(pollQueue(deliveries.queueUrl, deliveries.queueArn, "webhooks-deliver", 10, 256));

  return {
    sqsEndpoint: server.address,
    queues: { events: events.queueUrl, eventsDlq: eventsDlq.queueUrl, deliveries: deliveries.queueUrl, deliveriesDlq: deliveriesDlq.queueUrl },
    async stop() {
      abort.abort();
      for (const w of wakers) w();
      await Promise.allSettled(loops);
      // In-flight invocations end within WEBHOOK_TIMEOUT plus bookkeeping; bounded anyway.
      await Promise.race([Promise.allSettled([...running]), sleep((config().WEBHOOK_TIMEOUT + 5) * 1000)]);
      streams.destroy();
      sqs.destroy();
      resetSqs();
    },
  };
}
