/**
 * The limiter's counter store on the throttle table: one UpdateItem per rule per request.
 * Fixed windows: one item per window (`ADD n :1`, the window start is in the key, so an expired
 * counter is never read whatever TTL does). Sliding windows: one item per subject holding one
 * attribute per slice (`ADD s<slice> :1`, REMOVE the slice that stopped counting); the code
 * counts only the slices of the current span, so leftovers and TTL lag never matter.
 *
 * Its own client: the counter sits in front of every request, so it gets a short timeout and no
 * SDK retries: an `ADD` retried after a timeout may already have been applied and would count one
 * request twice. Only errors that guarantee the write was NOT applied (DynamoDB throttling) are
 * retried, once.
 */
import { DynamoDBClient, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { config, type Config } from "../config.ts";
import type { CounterId, CounterStore } from "../ratelimit/limiter.ts";
import { throttleKeys } from "./keys.ts";

export interface ThrottleStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** The wall clock in ms (the TTL is about real time, whatever clock the limiter counts with). */
  readonly wallClockMs?: () => number;
}

/**
 * A counter's TTL is its window's end, but never earlier than this many seconds after the wall
 * clock. DynamoDB may delete an item any time after its TTL (DynamoDB Local within seconds): a
 * limiter counting with a clock behind the wall clock (an injected test clock, a container that
 * drifted) would otherwise write a TTL already past, the counter would be swept mid-window and
 * the count would restart from 0 (how 16 of 8 once passed). The code never relies on TTL.
 */
export const TTL_GRACE_SECONDS = 300;

export function throttleClient(c: Config, endpoint = c.DYNAMODB_ENDPOINT): DynamoDBClient {
  return new DynamoDBClient({
    region: c.AWS_REGION,
    ...(endpoint ? { endpoint } : {}),
    maxAttempts: 1,
    requestHandler: { connectionTimeout: c.THROTTLE_TIMEOUT_MS, requestTimeout: c.THROTTLE_TIMEOUT_MS, throwOnRequestTimeout: true },
  });
}

/** Errors returned before the write happened: safe to send again. */
const NOT_APPLIED = new Set(["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"]);

async function sendOnce<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!NOT_APPLIED.has((err as { name?: string })?.name ?? "")) throw err;
    return send();
  }
}

export function dynamoCounterStore({ client, tableName, wallClockMs = Date.now }: ThrottleStoreOptions): CounterStore {
  const ttl = (expiresAt: number): string => String(Math.max(expiresAt, Math.ceil(wallClockMs() / 1000) + TTL_GRACE_SECONDS));
  return {
    async hitFixed(id: CounterId, windowStart: number, expiresAt: number): Promise<number> {
      const { pk } = throttleKeys.fixed(id.rule, id.subject, windowStart);
      const out = await sendOnce(() => client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { pk: { S: pk } },
          UpdateExpression: "ADD n :one SET expiresAt = :exp",
          ExpressionAttributeValues: { ":one": { N: "1" }, ":exp": { N: ttl(expiresAt) } },
          ReturnValues: "UPDATED_NEW",
        }),
      ));
      return Number(out.Attributes?.["n"]?.N);
    },

    async hitSliding(id: CounterId, slice: number, drop: number, expiresAt: number): Promise<Map<number, number>> {
      const { pk } = throttleKeys.sliding(id.rule, id.subject);
      const out = await sendOnce(() => client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { pk: { S: pk } },
          UpdateExpression: "ADD #cur :one SET expiresAt = :exp REMOVE #drop",
          ExpressionAttributeNames: { "#cur": throttleKeys.sliceAttribute(slice), "#drop": throttleKeys.sliceAttribute(drop) },
          ExpressionAttributeValues: { ":one": { N: "1" }, ":exp": { N: ttl(expiresAt) } },
          ReturnValues: "ALL_NEW",
        }),
      ));
      const counts = new Map<number, number>();
      for (const [name, value] of Object.entries(out.Attributes ?? {})) {
        const s = throttleKeys.sliceOf(name);
        if (s !== undefined && value.N !== undefined) counts.set(s, Number(value.N));
      }
      return counts;
    },

    async dropSlices(id: CounterId, slices: readonly number[]): Promise<void> {
      const { pk } = throttleKeys.sliding(id.rule, id.subject);
      const names = Object.fromEntries(slices.map((s, i) => [`#d${i}`, throttleKeys.sliceAttribute(s)]));
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: { pk: { S: pk } },
          UpdateExpression: `REMOVE ${Object.keys(names).join(", ")}`,
          ExpressionAttributeNames: names,
        }),
      );
    },
  };
}

let current: { settings: string; client: DynamoDBClient; store: CounterStore } | undefined;

/** The container's store; rebuilt only when its settings change (tests and the sandbox reset config). */
export function throttleStore(): CounterStore {
  const c = config();
  const settings = JSON.stringify([c.AWS_REGION, c.DYNAMODB_ENDPOINT, c.THROTTLE_TIMEOUT_MS, c.THROTTLE_TABLE_NAME]);
  if (current?.settings === settings) return current.store;
  current?.client.destroy();
  const client = throttleClient(c);
  current = { settings, client, store: dynamoCounterStore({ client, tableName: c.THROTTLE_TABLE_NAME }) };
  return current.store;
}

/** The client behind throttleStore() (the tests count its calls). */
export function throttleStoreClient(): DynamoDBClient {
  throttleStore();
  return current!.client;
}
