/**
 * Pacing of a webhook's deliveries (`rate_limit`, deliveries per second) against DynamoDB Local's
 * throttle table: a fixed one-second window per webhook, every check counted, the n-th check past
 * the limit waits ceil((n - limit) / limit) seconds, a webhook without a rate never waits, and a
 * counter that cannot be counted makes the delivery wait a second (fail closed).
 */
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { config } from "../../shared/config.ts";
import { throttleKeys } from "../../shared/db/keys.ts";
import { dynamoCounterStore, throttleClient } from "../../shared/db/throttle-store.ts";
import { pacer, type PacedWebhook } from "../../shared/delivery/pacing.ts";

const client = throttleClient({ ...config(), THROTTLE_TIMEOUT_MS: 15_000 }); // generous: a loaded machine must not fail checks
const table = config().THROTTLE_TABLE_NAME;
const pace = pacer(dynamoCounterStore({ client, tableName: table }));
afterAll(() => client.destroy());

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0); // a whole second
let nextId = 0;
const webhook = (rate_limit: number | null, account_id = 1): PacedWebhook => ({ id: ++nextId + process.pid * 1000, account_id, rate_limit });

/** Waits of `n` deliveries checked one after the other at `nowMs`. */
async function waits(w: PacedWebhook, n: number, nowMs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await pace(w, nowMs));
  return out;
}

describe("webhook pacing", () => {
  it("a webhook without a rate limit never waits and is not counted", async () => {
    const w = webhook(null);
    expect(await waits(w, 5, T0)).toEqual([0, 0, 0, 0, 0]);
    const counter = await client.send(
      new GetItemCommand({ TableName: table, Key: { pk: { S: throttleKeys.fixed("webhook_rate", `${w.account_id}:${w.id}`, T0 / 1000).pk } }, ConsistentRead: true }),
    );
    expect(counter.Item).toBeUndefined();
  });

  it("the first `rate_limit` deliveries of a second go at once; the rest wait ceil((n - limit) / limit) seconds", async () => {
    const w = webhook(2);
    // n = 1..9 with limit 2: 0 0 | ceil(1/2) ceil(2/2) | ceil(3/2) ceil(4/2) | ceil(5/2) ceil(6/2) | ceil(7/2)
    expect(await waits(w, 9, T0 + 100)).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4]);
  });

  it("a limit of one spreads a burst one per second", async () => {
    const w = webhook(1);
    expect(await waits(w, 4, T0)).toEqual([0, 1, 2, 3]);
  });

  it("counts every check in the webhook's one-second window of the throttle table", async () => {
    const w = webhook(3, 42);
    await waits(w, 5, T0 + 500);
    const counter = await client.send(
      new GetItemCommand({ TableName: table, Key: { pk: { S: throttleKeys.fixed("webhook_rate", `42:${w.id}`, T0 / 1000).pk } }, ConsistentRead: true }),
    );
    expect(counter.Item?.["n"]?.N).toBe("5");
  });

  it("windows are fixed whole seconds: the next second starts from zero", async () => {
    const w = webhook(2);
    expect(await waits(w, 3, T0 + 999)).toEqual([0, 0, 1]);
    expect(await waits(w, 3, T0 + 1000)).toEqual([0, 0, 1]);
  });

  it("each webhook has its own pace: one webhook's burst never slows another, in the same or another account", async () => {
    const a = webhook(1, 7);
    const b = webhook(1, 7);
    const sameIdOtherAccount: PacedWebhook = { ...a, account_id: 8 };
    expect(await waits(a, 3, T0)).toEqual([0, 1, 2]);
    expect(await pace(b, T0)).toBe(0);
    expect(await pace(sameIdOtherAccount, T0)).toBe(0);
  });

  it("fails closed: when the counter cannot be counted the delivery waits a second", async () => {
    const broken = pacer(dynamoCounterStore({ client, tableName: `${table}-missing` }));
    expect(await broken(webhook(100), T0)).toBe(1);
    expect(await broken(webhook(null), T0)).toBe(0);
  });
});
