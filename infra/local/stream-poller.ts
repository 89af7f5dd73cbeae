/**
 * The sandbox's Pipe: a poller on the main table's DynamoDB stream that applies the Pipe's filter,
 * builds the envelope Pipe + bus make (shared/events/envelope.ts, the same definitions the CDK
 * stack uses), applies the bus rule and puts what matches on the events queue. Without a position
 * file it reads from LATEST, as the Pipe does; shards that open later are read from their start.
 * With one (a sandbox with a data directory), it keeps each shard's last forwarded sequence number
 * there, written after the batch is on the events queue (atomic rename), and resumes after it on
 * restart (from TRIM_HORIZON for a shard it has no position for): a killed sandbox loses no record.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import { randomUUID } from "node:crypto";
import { DescribeTableCommand } from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from "@aws-sdk/client-dynamodb-streams";
import { SendMessageBatchCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { envelopeFor, matchesPattern, OPERATOR_PATTERN, RULE_PATTERN, type BusEnvelope } from "../../shared/events/envelope.ts";
import { queueJson } from "../../shared/events/queue-json.ts";
import { localClient, LOCAL_CREDENTIALS } from "./dynamo.ts";
import type { Poller } from "./queue-poller.ts";

export interface StreamPollerOptions {
  readonly dynamoEndpoint: string;
  readonly tableName: string;
  readonly sqs: SQSClient;
  /** The events queue (the bus rule's target). */
  readonly queueUrl: string;
  readonly region: string;
  /** Account id in the envelopes. */
  readonly account: string;
  /** Poll interval (ms). */
  readonly pollMs: number;
  /** Where each shard's position is kept across restarts; omitted = none (start at LATEST). */
  readonly positionFile?: string | undefined;
  /**
   * Where operator events (subscription_created, quote_requested, webhook_disabled) are written,
   * one JSON file each: in AWS they go to the operator's own rules on the bus; here, to a folder.
   */
  readonly operatorEventsDir?: string | undefined;
}

/** An operator event as a file: `<occurred at>-<event>-<event id>.json`, the same name on a replay. */
function writeOperatorEvent(dir: string, env: BusEnvelope): void {
  const item = unmarshall((env.detail as { outbox: Parameters<typeof unmarshall>[0] }).outbox) as Record<string, unknown>;
  const at = new Date(Number(item["occurredAt"])).toISOString().replace(/[:.]/g, "-");
  const body = { event: item["event"], event_id: item["eventId"], account_id: item["accountId"], occurred_at: item["occurredAt"], payload: JSON.parse(String(item["payload"])) as unknown };
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${at}-${String(item["event"])}-${String(item["eventId"])}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`);
  renameSync(tmp, file);
}

/** Shard id -> sequence number of the last record forwarded. */
type Positions = Record<string, string>;

function readPositions(file: string | undefined): Positions {
  if (!file || !existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Positions;
  } catch {
    return {};
  }
}

/** Write-then-rename: a kill mid-write leaves the previous file whole. */
function writePositions(file: string, positions: Positions): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(positions));
  renameSync(tmp, file);
}

interface ShardState {
  readonly iterator?: string;
  readonly lastSeq?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startStreamPoller(opts: StreamPollerOptions): Promise<Poller> {
  const { sqs, region } = opts;
  const ddb = localClient(opts.dynamoEndpoint);
  const streams = new DynamoDBStreamsClient({ endpoint: opts.dynamoEndpoint, region, credentials: LOCAL_CREDENTIALS });
  const streamArn = (await ddb.send(new DescribeTableCommand({ TableName: opts.tableName }))).Table?.LatestStreamArn;
  ddb.destroy();
  if (!streamArn) {
    streams.destroy();
    throw new Error(`table ${opts.tableName} has no stream`);
  }
  const shards = new Map<string, ShardState>();
  const positions = readPositions(opts.positionFile);
  const persistent = opts.positionFile !== undefined;
  let stopped = false;

  const state = (iterator: string | undefined, lastSeq: string | undefined): ShardState => ({
    ...(iterator ? { iterator } : {}),
    ...(lastSeq ? { lastSeq } : {}),
  });

  async function discover(initial: boolean): Promise<void> {
    let start: string | undefined;
    do {
      const d = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      for (const shard of d.StreamDescription?.Shards ?? []) {
        const id = shard.ShardId!;
        if (shards.has(id)) continue;
        const kept = positions[id];
        if (kept) {
          await reacquire(id, kept);
          continue;
        }
        // Closed before we started: known, never read (reading it from TRIM_HORIZON would replay history).
        if (initial && !persistent && shard.SequenceNumberRange?.EndingSequenceNumber) {
          shards.set(id, {});
          continue;
        }
        const it = await streams.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: id, ShardIteratorType: initial && !persistent ? "LATEST" : "TRIM_HORIZON" }),
        );
        shards.set(id, state(it.ShardIterator, undefined));
      }
      start = d.StreamDescription?.LastEvaluatedShardId;
    } while (start);
  }

  async function reacquire(shardId: string, lastSeq: string | undefined): Promise<void> {
    const from = lastSeq
      ? ({ ShardIteratorType: "AFTER_SEQUENCE_NUMBER", SequenceNumber: lastSeq } as const)
      : ({ ShardIteratorType: persistent ? "TRIM_HORIZON" : "LATEST" } as const);
    let it;
    try {
      it = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ...from }));
    } catch (err) {
      // The kept position fell out of the stream's retention: read what is left.
      if (!lastSeq || (err as { name?: string }).name !== "TrimmedDataAccessException") throw err;
      it = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: "TRIM_HORIZON" }));
    }
    shards.set(shardId, state(it.ShardIterator, lastSeq));
  }

  /** Pipe filter + envelope + bus rule: the queue bodies a batch of stream records gives. */
  function toQueueBodies(records: readonly StreamRecord[]): string[] {
    const out: string[] = [];
    for (const r of records) {
      const env = envelopeFor(JSON.parse(JSON.stringify(r)), { id: randomUUID(), account: opts.account, region, time: new Date() });
      if (env && matchesPattern(RULE_PATTERN, env)) out.push(queueJson(env));
      else if (env && opts.operatorEventsDir && matchesPattern(OPERATOR_PATTERN, env)) writeOperatorEvent(opts.operatorEventsDir, env);
    }
    return out;
  }

  async function readShard(shardId: string, shard: ShardState): Promise<void> {
    if (!shard.iterator) return;
    try {
      const got = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: 1000 }));
      const records = got.Records ?? [];
      const bodies = toQueueBodies(records);
      for (let i = 0; i < bodies.length; i += 10) {
        const sent = await sqs.send(
          new SendMessageBatchCommand({ QueueUrl: opts.queueUrl, Entries: bodies.slice(i, i + 10).map((b, j) => ({ Id: String(j), MessageBody: b })) }),
        );
        // A refused entry keeps the position where it was: the batch is read again next tick
        // (at least once, as the Pipe retries; the fan-out is idempotent per event id).
        if (sent.Failed?.length) throw new Error(`the events queue refused ${sent.Failed.length} message(s): ${sent.Failed.map((f) => f.Code).join(", ")}`);
      }
      const lastSeq = records.at(-1)?.dynamodb?.SequenceNumber ?? shard.lastSeq;
      shards.set(shardId, state(got.NextShardIterator, lastSeq));
      // The batch is on the events queue: only now does the kept position move past it.
      if (opts.positionFile && lastSeq && positions[shardId] !== lastSeq) {
        positions[shardId] = lastSeq;
        writePositions(opts.positionFile, positions);
      }
    } catch (err) {
      if (stopped) return;
      if ((err as { name?: string }).name === "ExpiredIteratorException") await reacquire(shardId, shard.lastSeq);
      else throw err;
    }
  }

  await discover(true);
  const loop = (async () => {
    let tick = 0;
    while (!stopped) {
      try {
        if (++tick % 20 === 0) await discover(false);
        await Promise.all([...shards].map(([id, shard]) => readShard(id, shard)));
      } catch (err) {
        if (stopped) return;
        console.error(JSON.stringify({ level: "error", message: "sandbox stream poller", error: String(err) }));
      }
      await sleep(opts.pollMs);
    }
  })();

  return {
    running: new Set(),
    async stop() {
      stopped = true;
      await loop;
      streams.destroy();
    },
  };
}
