/**
 * The limiter against DynamoDB Local: exactly `limit` of many concurrent requests pass for every
 * rule, denied requests count, no boundary burst on sliding rules (injected clock), exact
 * Retry-After, expired counters ignored by the code.
 */
import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { ensureTable } from "../../infra/local/dynamo.ts";
import { throttleTable } from "../../shared/db/table.ts";
import { config } from "../../shared/config.ts";
import { throttleKeys } from "../../shared/db/keys.ts";
import { dynamoCounterStore, throttleClient, TTL_GRACE_SECONDS } from "../../shared/db/throttle-store.ts";
import { RateLimited, ServiceUnavailable } from "../../shared/errors.ts";
import { decide, Limiter, type Outcome } from "../../shared/ratelimit/limiter.ts";
import { buildRules, RULE_NAMES, type Rule } from "../../shared/ratelimit/rules.ts";
import { secondsUntil } from "../../shared/ratelimit/window.ts";

const client = throttleClient({ ...config(), THROTTLE_TIMEOUT_MS: 15_000 }); // generous: a loaded machine must not fail checks
const table = config().THROTTLE_TABLE_NAME;
const limiter = new Limiter(dynamoCounterStore({ client, tableName: table }));
const rules = buildRules(config());
afterAll(() => client.destroy());

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0); // aligned with every window used here
const at = (s: number) => T0 + s * 1000;
let n = 0;
const subject = () => `subject-${process.pid}-${++n}`;
const one = (rule: Rule, subj: string, s: number) => limiter.evaluate([{ rule, subject: subj }], at(s));
const allowed = (o: Outcome) => o.verdicts.every((v) => v.allowed) && o.failed.length === 0;

async function item(pk: string) {
  const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk } }, ConsistentRead: true }));
  return out.Item;
}

describe("exactly `limit` pass under concurrency", () => {
  it.each(RULE_NAMES.map((name) => [name, rules[name]] as const))("%s: 8 of 40 concurrent requests pass", async (_name, base) => {
    const rule: Rule = { ...base, limit: 8 };
    const subj = subject();
    const outcomes = await Promise.all(Array.from({ length: 40 }, () => one(rule, subj, 10)));
    expect(outcomes.filter(allowed)).toHaveLength(8);
    const remaining = outcomes.filter(allowed).map((o) => o.verdicts[0]!.remaining).sort((a, b) => a - b);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("counts denied requests too (the stored counter holds every request)", async () => {
    const rule: Rule = { ...rules.checkout_link, limit: 3 };
    const subj = subject();
    await Promise.all(Array.from({ length: 25 }, () => one(rule, subj, 10)));
    const stored = await item(throttleKeys.fixed(rule.name, subj, T0 / 1000).pk);
    expect(stored?.["n"]?.N).toBe("25");
    expect(Number(stored?.["expiresAt"]?.N)).toBeGreaterThanOrEqual(T0 / 1000 + 60);
  });

  it("evaluates several rules of one request together and denies on the one that is full", async () => {
    const a: Rule = { ...rules.reports_account, limit: 100 };
    const u: Rule = { ...rules.reports_user, limit: 2 };
    const acc = subject();
    const key = subject();
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => limiter.evaluate([{ rule: a, subject: acc }, { rule: u, subject: key }], at(10))));
    expect(outcomes.filter(allowed)).toHaveLength(2);
    const denied = outcomes.find((o) => !allowed(o))!;
    const decision = Promise.resolve().then(() => decide(denied, at(10)));
    await expect(decision).rejects.toBeInstanceOf(RateLimited);
    await expect(decision).rejects.toMatchObject({ info: { rule: "reports_user", limit: 2, windowSeconds: 60, retryAfterSeconds: 50 } });
  });
});

describe("exactly `limit` per window with 200 concurrent callers straddling a window edge (injected clock)", () => {
  /** Caller i arrives at edge - 0.1 s + i ms: 100 before the edge, 100 from it on, all at once. */
  const straddle = (rule: Rule, subj: string, edge: number) =>
    Promise.all(Array.from({ length: 200 }, (_, i) => one(rule, subj, edge - 0.1 + i / 1000).then((o) => ({ o, before: i < 100 }))));

  it.each(["global", "checkout_link", "reports_user"] as const)("%s (fixed): exactly `limit` before the edge and `limit` after it", async (name) => {
    const rule: Rule = { ...rules[name], limit: 10 };
    const subj = subject();

    const calls = await straddle(rule, subj, rule.windowSeconds);

    expect(calls.filter((c) => c.before && allowed(c.o))).toHaveLength(10);
    expect(calls.filter((c) => !c.before && allowed(c.o))).toHaveLength(10);
    expect(calls.every((c) => c.o.failed.length === 0)).toBe(true);
    const stored = await item(throttleKeys.fixed(rule.name, subj, T0 / 1000).pk);
    expect(stored?.["n"]?.N).toBe("100");
  });

  it.each(["checkout_coupon", "login_ip"] as const)("%s (sliding): exactly `limit` in all, the edge opens nothing", async (name) => {
    const rule = rules[name];
    const subj = subject();

    const calls = await straddle(rule, subj, rule.windowSeconds);

    expect(calls.filter((c) => allowed(c.o))).toHaveLength(rule.limit);
    expect(calls.every((c) => c.o.failed.length === 0)).toBe(true);
  });
});

describe("the sliding window's slice-deletion bound", () => {
  it("checkout_coupon (10 per 10 min): 10 requests at t=100 s keep a request at t=640 s and t=660 s out; t=720 s passes", async () => {
    const rule = rules.checkout_coupon; // 60-s slices: t=100 is slice 1, counted through slice 11 (t < 720)
    const subj = subject();
    const pk = throttleKeys.sliding(rule.name, subj).pk;
    const first = await Promise.all(Array.from({ length: 10 }, () => one(rule, subj, 100)));
    expect(first.filter(allowed)).toHaveLength(10);

    expect(allowed(await one(rule, subj, 640))).toBe(false);
    expect(allowed(await one(rule, subj, 660))).toBe(false);
    // Slice 1 is still stored after the slice-11 request removed what stopped counting.
    expect((await item(pk))?.[throttleKeys.sliceAttribute(T0 / 1000 / 60 + 1)]?.N).toBe("10");
    expect(allowed(await one(rule, subj, 719.999))).toBe(false);
    expect(allowed(await one(rule, subj, 720))).toBe(true);
    expect((await item(pk))?.[throttleKeys.sliceAttribute(T0 / 1000 / 60 + 1)]).toBeUndefined();
  });
});

describe("fixed windows", () => {
  it("start again at the aligned boundary and give the exact Retry-After", async () => {
    const rule: Rule = { ...rules.contact_search, limit: 2 };
    const subj = subject();
    expect(allowed(await one(rule, subj, 12))).toBe(true);
    expect(allowed(await one(rule, subj, 30))).toBe(true);
    const denied = await one(rule, subj, 42.3);
    expect(allowed(denied)).toBe(false);
    expect(secondsUntil(at(42.3), denied.verdicts[0]!.reopensAt)).toBe(18);
    expect(allowed(await one(rule, subj, 59.99))).toBe(false);
    expect(allowed(await one(rule, subj, 60))).toBe(true);
  });

  it("ignore a counter of an earlier window even if TTL never removed it", async () => {
    const rule: Rule = { ...rules.upload, limit: 1 };
    const subj = subject();
    const old = throttleKeys.fixed(rule.name, subj, T0 / 1000 - 3600);
    await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: old.pk }, n: { N: "999" }, expiresAt: { N: String(T0 / 1000) } } }));
    expect(allowed(await one(rule, subj, 5))).toBe(true);
  });

  it("let a double burst through at a window boundary (why the security rules slide)", async () => {
    const rule: Rule = { ...rules.login_ip, algorithm: "fixed", limit: 5 };
    const subj = subject();
    const before = await Promise.all(Array.from({ length: 5 }, () => one(rule, subj, 299)));
    const after = await Promise.all(Array.from({ length: 5 }, () => one(rule, subj, 301)));
    expect([...before, ...after].filter(allowed)).toHaveLength(10);
  });
});

describe("sliding windows (login, password, coupon, prefill, subscribe)", () => {
  /** `limit` requests just before the window end, then a burst of `limit` just after it. */
  async function boundaryBurst(rule: Rule, subj: string) {
    const w = rule.windowSeconds;
    const end = await Promise.all(Array.from({ length: rule.limit }, () => one(rule, subj, w - 1)));
    const burst = await Promise.all(Array.from({ length: rule.limit }, () => one(rule, subj, w + 1)));
    const retryAfter = Math.max(...burst.map((o) => secondsUntil(at(w + 1), o.verdicts[0]!.reopensAt)));
    return { passedBefore: end.filter(allowed).length, passedAfter: burst.filter(allowed).length, retryAfter };
  }

  it.each(["login_ip", "login_email", "password_ip", "checkout_subscribe", "checkout_prefill", "checkout_coupon"] as const)(
    "%s: no burst across a window boundary; Retry-After is exact",
    async (name) => {
      const rule = rules[name];
      const [a, b] = [subject(), subject()];
      const ra = await boundaryBurst(rule, a);
      const rb = await boundaryBurst(rule, b);
      expect([ra.passedBefore, ra.passedAfter]).toEqual([rule.limit, 0]);
      expect(rb).toEqual(ra);
      // Denied requests count: the refused burst itself keeps the client out until it leaves the count.
      expect(ra.retryAfter).toBeGreaterThanOrEqual(rule.windowSeconds - 1);
      const t = rule.windowSeconds + 1 + ra.retryAfter;
      expect(allowed(await one(rule, b, t - 1))).toBe(false);
      expect(allowed(await one(rule, a, t))).toBe(true);
    },
  );

  it("a single refused request is told exactly when the oldest slice stops counting", async () => {
    const rule = rules.checkout_coupon; // 10 per 600 s, 60 s slices
    const subj = subject();
    for (let i = 0; i < 10; i++) expect(allowed(await one(rule, subj, 100 + i))).toBe(true);
    const denied = await one(rule, subj, 200);
    expect(allowed(denied)).toBe(false);
    expect(denied.verdicts[0]!.remaining).toBe(0);
    const retryAfter = secondsUntil(at(200), denied.verdicts[0]!.reopensAt);
    expect(retryAfter).toBe(720 - 200); // the slice [60,120) stops counting at 720
    expect(allowed(await one(rule, subj, 200 + retryAfter - 1))).toBe(false);
    expect(allowed(await one(rule, subj, 200 + retryAfter))).toBe(true);
  });

  it("ignores and removes slices left behind by an idle gap", async () => {
    const rule: Rule = { ...rules.password_ip, limit: 1 }; // 180 s slices
    const subj = subject();
    const pk = throttleKeys.sliding(rule.name, subj).pk;
    const stale = throttleKeys.sliceAttribute(T0 / 1000 / 180 - 40);
    await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: pk }, [stale]: { N: "50" }, expiresAt: { N: "1" } } }));
    expect(allowed(await one(rule, subj, 5))).toBe(true);
    const stored = await item(pk);
    expect(stored?.[stale]).toBeUndefined();
    expect(stored?.[throttleKeys.sliceAttribute(T0 / 1000 / 180)]?.N).toBe("1");
  });
});

describe("when the counter store fails", () => {
  it("reports every rule it could not count, with the store's error and no verdict; a fail-closed rule makes it a 503", async () => {
    const down = new Limiter(dynamoCounterStore({ client, tableName: `${table}-missing` })); // no such table
    const [open, closed] = [rules.checkout_link, rules.login_ip];

    const outcome = await down.evaluate([{ rule: open, subject: subject() }, { rule: closed, subject: subject() }], at(10));

    expect(outcome.verdicts).toEqual([]);
    expect(outcome.failed.map((f) => f.rule)).toEqual([open, closed]);
    for (const f of outcome.failed) expect(f.error).toMatchObject({ name: "ResourceNotFoundException" });
    expect(() => decide(outcome, at(10))).toThrow(ServiceUnavailable);
  });

  it("keeps the verdicts of the rules it could count beside one it could not; a fail-open failure lets the request through", async () => {
    const tooLong = "x".repeat(3000); // over DynamoDB's 2048-byte partition key: the store refuses that call

    const outcome = await limiter.evaluate([{ rule: rules.global, subject: tooLong }, { rule: rules.checkout_link, subject: subject() }], at(10));

    expect(outcome.failed.map((f) => f.rule.name)).toEqual(["global"]);
    expect(outcome.verdicts.map((v) => [v.rule.name, v.allowed, v.count])).toEqual([["checkout_link", true, 1]]);
    expect(decide(outcome, at(10))).toMatchObject({ rule: { name: "checkout_link" }, remaining: rules.checkout_link.limit - 1 });
  });
});

describe("a counter is never swept while its window is counted, whatever clock the limiter is given", () => {
  // DynamoDB Local's TTL sweeper deletes an item within seconds of its expiresAt; a limiter
  // handed a clock behind the wall clock (an injected test clock, a drifting container) wrote
  // a TTL already past, the sweeper deleted the counter mid-window and the count restarted.
  it("writes a TTL at least TTL_GRACE_SECONDS past the wall clock", async () => {
    const rule: Rule = { ...rules.checkout_link, limit: 3 };
    const subj = subject();
    const wall = Math.floor(Date.now() / 1000);

    await one(rule, subj, 10);

    const stored = await item(throttleKeys.fixed(rule.name, subj, T0 / 1000).pk);
    expect(Number(stored?.["expiresAt"]?.N)).toBeGreaterThanOrEqual(wall + TTL_GRACE_SECONDS);
    expect(Number(stored?.["expiresAt"]?.N)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + TTL_GRACE_SECONDS);
  });

  it("keeps the window's end when it is later (the wall clock = the limiter's clock, as in production)", async () => {
    const live = new Limiter(dynamoCounterStore({ client, tableName: table, wallClockMs: () => T0 }));
    const [fixed, sliding] = [rules.upload, rules.password_ip]; // 1 h fixed; 30 min sliding in 180-s slices
    const [a, b, c] = [subject(), subject(), subject()];

    await live.evaluate([{ rule: fixed, subject: a }, { rule: sliding, subject: b }, { rule: rules.global, subject: c }], T0);

    expect((await item(throttleKeys.fixed(fixed.name, a, T0 / 1000).pk))?.["expiresAt"]?.N).toBe(String(T0 / 1000 + 3600));
    expect((await item(throttleKeys.sliding(sliding.name, b).pk))?.["expiresAt"]?.N).toBe(String(T0 / 1000 + 11 * 180));
    expect((await item(throttleKeys.fixed("global", c, T0 / 1000).pk))?.["expiresAt"]?.N).toBe(String(T0 / 1000 + TTL_GRACE_SECONDS));
  });

  it("on a table with TTL on: exactly 8 of 40 requests spread over 4 s pass (a 2026-01-01 window)", async () => {
    const ttlTable = `${table}-ttl`;
    await ensureTable(client, ttlTable, throttleTable); // TTL on, as in production
    const onTtl = new Limiter(dynamoCounterStore({ client, tableName: ttlTable }));
    const rule: Rule = { ...rules.checkout_link, limit: 8 };
    const subj = subject();

    const outcomes: Outcome[] = [];
    for (let i = 0; i < 40; i++) {
      outcomes.push(await onTtl.evaluate([{ rule, subject: subj }], at(10)));
      await new Promise((r) => setTimeout(r, 100));
    }

    expect(outcomes.filter(allowed)).toHaveLength(8);
  });
});
