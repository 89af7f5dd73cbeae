/**
 * Rate-limiter benchmark (`npm run bench:ratelimit`), everything on ONE DynamoDB Local in one run:
 *
 * 1. checks per second at 1, 16 and 64 concurrent callers (each caller its own subject, a limit
 *    never reached) for this limiter (fixed and sliding rules) and rate-limiter-flexible's
 *    RateLimiterDynamo, with the DynamoDB calls per check (counted by a middleware on each client);
 * 2. 200 concurrent callers racing for a limit of 50 on one fresh subject: how many pass (must be 50);
 * 3. the p50 latency throttling adds on a real route in the sandbox (APP_ENV=production vs
 *    ENABLE_THROTTLE=false), next to the p50 of one DynamoDB round trip.
 *
 * Prints tables and writes docs/bench/ratelimit.json. Ratios within this run are what count;
 * absolute figures depend on the machine (DynamoDB Local is a Java process on the same cores).
 */
import { DynamoDB, DynamoDBClient, GetItemCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { RateLimiterDynamo, RateLimiterRes } from "rate-limiter-flexible";
import { loopbackApiBase, withDynamoLocal, withSandbox } from "./lib/sandbox.ts";
import { ensureTable, LOCAL_CREDENTIALS } from "../../infra/local/dynamo.ts";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { setConfig } from "../../shared/config.ts";
import { throttleTable } from "../../shared/db/table.ts";
import { dynamoCounterStore } from "../../shared/db/throttle-store.ts";
import { Limiter } from "../../shared/ratelimit/limiter.ts";
import { buildRules, type Rule } from "../../shared/ratelimit/rules.ts";
import { cores, cpuModel, writeResult } from "./lib/output.ts";
import { quantileFloor, round } from "./lib/stats.ts";
import { formatTable } from "./lib/table.ts";
import { timeMs } from "./lib/timing.ts";

const CALLERS = [1, 16, 64] as const;
const SECONDS = Number(process.env["BENCH_SECONDS"] ?? 6);
const ROUNDS = 3;
const RACE = { callers: 200, limit: 50, rounds: 5 } as const;
const LATENCY_REQUESTS = Number(process.env["BENCH_LATENCY_REQUESTS"] ?? 300);

interface Counted<C> {
  readonly client: C;
  calls(): number;
}

/** Counts every API call the client makes (one per command, retries not included). */
function counted<C extends DynamoDBClient>(client: C): Counted<C> {
  let n = 0;
  client.middlewareStack.add((next) => async (args) => {
    n++;
    return next(args);
  }, { step: "initialize", name: "benchCallCounter" });
  return { client, calls: () => n };
}

const clientOptions = (endpoint: string) => ({ endpoint, region: "us-east-1", credentials: LOCAL_CREDENTIALS, maxAttempts: 2 });

type Check = (subject: string) => Promise<boolean>;

interface Contender {
  readonly name: string;
  readonly calls: () => number;
  /** A check function for a limit; `prepare` may create state (rate-limiter-flexible instances). */
  make(limit: number, windowSeconds: number): Check;
}

interface Tally {
  checks: number;
  calls: number;
  seconds: number;
  readonly latencies: number[];
}

/** One slice of a cell: `callers` loops on their own subjects for `seconds`. */
async function measure(c: Contender, check: Check, callers: number, run: string, seconds: number, tally: Tally): Promise<void> {
  const calls0 = c.calls();
  const deadline = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async (_, i) => {
      while (performance.now() < deadline) {
        const s = performance.now();
        await check(`${run}-${i}`);
        tally.latencies.push(performance.now() - s);
        tally.checks++;
      }
    }),
  );
  tally.seconds += (performance.now() - t0) / 1000;
  tally.calls += c.calls() - calls0;
}

/** Every contender at `callers`, interleaved in ROUNDS slices so that load drift hits all alike. */
async function throughput(contenders: readonly Contender[], callers: number) {
  const checks = contenders.map((c) => c.make(1_000_000_000, 60));
  const runs = contenders.map((c) => `${c.name}-${callers}-${Date.now()}`);
  // warm-up: connections, JIT, each caller's item created
  await Promise.all(contenders.map((_, k) => Promise.all(Array.from({ length: callers }, (_, i) => checks[k]!(`${runs[k]}-${i}`)))));
  const tallies: Tally[] = contenders.map(() => ({ checks: 0, calls: 0, seconds: 0, latencies: [] }));
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < contenders.length; k++) await measure(contenders[k]!, checks[k]!, callers, runs[k]!, SECONDS / ROUNDS, tallies[k]!);
  }
  return tallies.map((t) => ({
    checksPerSecond: round(t.checks / t.seconds, 1),
    callsPerCheck: round(t.calls / t.checks, 3),
    p50Ms: round(quantileFloor(t.latencies, 0.5), 2),
    checks: t.checks,
  }));
}

async function race(c: Contender) {
  const passed: number[] = [];
  for (let r = 0; r < RACE.rounds; r++) {
    const check = c.make(RACE.limit, 60);
    const subject = `${c.name}-race-${r}-${Date.now()}`;
    const results = await Promise.all(Array.from({ length: RACE.callers }, () => check(subject)));
    passed.push(results.filter(Boolean).length);
  }
  return passed;
}

/**
 * Paired samples on one production sandbox: each turn times one request with throttling on, one
 * with ENABLE_THROTTLE=false (the handlers re-read the configuration) and one bare UpdateItem.
 */
async function pairedLatency(sandbox: Sandbox, endpoint: string, n: number) {
  const raw = new DynamoDBClient(clientOptions(endpoint));
  try {
    const url = `${loopbackApiBase(sandbox)}/api/v1/accounts/${sandbox.info.accountId}`;
    const request = async () => {
      const res = await fetch(url, { headers: { api_access_token: sandbox.info.agentApiKey } });
      if (res.status !== 200) throw new Error(`unexpected ${res.status}`);
      await res.arrayBuffer();
    };
    const update = () =>
      raw.send(
        new UpdateItemCommand({
          TableName: "bench-throttle",
          Key: { pk: { S: "round-trip" } },
          UpdateExpression: "ADD n :one SET expiresAt = :exp",
          ExpressionAttributeValues: { ":one": { N: "1" }, ":exp": { N: "4102444800" } },
          ReturnValues: "UPDATED_NEW",
        }),
      );
    const get = () => raw.send(new GetItemCommand({ TableName: "bench-throttle", Key: { pk: { S: "round-trip" } } }));
    const setThrottle = (on: boolean) => {
      setConfig({ ENABLE_THROTTLE: on ? "true" : "false" });
    };
    const on: number[] = [];
    const off: number[] = [];
    const updates: number[] = [];
    const gets: number[] = [];
    for (let i = 0; i < n + 20; i++) {
      setThrottle(true);
      const a = await timeMs(request);
      setThrottle(false);
      const b = await timeMs(request);
      const u = await timeMs(update);
      const g = await timeMs(get);
      if (i < 20) continue; // warm-up
      on.push(a);
      off.push(b);
      updates.push(u);
      gets.push(g);
    }
    const p50 = (xs: number[]) => quantileFloor(xs, 0.5);
    return { on: p50(on), off: p50(off), update: p50(updates), get: p50(gets) };
  } finally {
    raw.destroy();
  }
}

function table(title: string, head: string[], rows: (string | number)[][]): void {
  const columns = head.map((header, i) => ({ header, align: i === 0 ? ("left" as const) : ("right" as const) }));
  console.log(`\n${title}\n${formatTable(columns, rows, { rule: "columns" })}`);
}

async function main(): Promise<void> {
  await withDynamoLocal(async (dynamo) => {
    const endpoint = dynamo.endpoint;
    const ours = counted(new DynamoDBClient(clientOptions(endpoint)));
    const theirs = counted(new DynamoDB(clientOptions(endpoint)));
    await ensureTable(ours.client, "bench-throttle", throttleTable);
    const rules = buildRules({
      THROTTLE_LIMIT: 1,
      RATE_LIMIT_CONTACT_SEARCH: 1,
      RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL: 1,
      RATE_LIMIT_REPORTS_API_USER_LEVEL: 1,
      RATE_LIMIT_CONVERSATION_TRANSCRIPT: 1,
      RATE_LIMIT_CONVERSATIONS_META: 1,
    });
    const limiter = new Limiter(dynamoCounterStore({ client: ours.client, tableName: "bench-throttle" }));
    const ourCheck =
      (base: Rule) =>
      (limit: number, windowSeconds: number): Check => {
        const rule: Rule = { ...base, limit, windowSeconds };
        return async (subject) => {
          const o = await limiter.evaluate([{ rule, subject }], Date.now());
          if (o.failed.length) throw o.failed[0]!.error;
          return o.verdicts[0]!.allowed;
        };
      };

    // rate-limiter-flexible creates its table (provisioned, as its docs do) on construction.
    await new Promise<void>((res, rej) => {
      new RateLimiterDynamo({ storeClient: theirs.client, tableName: "bench-rlf", points: 1, duration: 60 }, (err?: unknown) => (err ? rej(err) : res()));
    });
    let rlfSeq = 0;
    const rlf = (limit: number, windowSeconds: number): Check => {
      const limiterRlf = new RateLimiterDynamo({
        storeClient: theirs.client,
        tableName: "bench-rlf",
        tableCreated: true,
        ttlSet: true,
        points: limit,
        duration: windowSeconds,
        keyPrefix: `rlf${++rlfSeq}`,
      });
      return async (subject) => {
        try {
          await limiterRlf.consume(subject);
          return true;
        } catch (e) {
          if (e instanceof RateLimiterRes) return false;
          throw e;
        }
      };
    };

    const contenders: Contender[] = [
      { name: "conversa fixed", calls: ours.calls, make: ourCheck(rules.global) },
      { name: "conversa sliding", calls: ours.calls, make: ourCheck(rules.checkout_coupon) },
      { name: "rate-limiter-flexible", calls: theirs.calls, make: rlf },
    ];

    const results: Record<string, Record<string, Awaited<ReturnType<typeof throughput>>[number]>> = {};
    for (const callers of CALLERS) {
      const cell = await throughput(contenders, callers);
      contenders.forEach((c, k) => ((results[c.name] ??= {})[String(callers)] = cell[k]!));
    }
    const rlf64 = results["rate-limiter-flexible"]!["64"]!.checksPerSecond;
    table(
      `Checks per second (${SECONDS} s per cell in ${ROUNDS} interleaved slices, each caller its own subject)`,
      ["limiter", ...CALLERS.map((c) => `${c} callers`), "calls/check", "p50 ms @64", "× rlf @64"],
      contenders.map((c) => [
        c.name,
        ...CALLERS.map((n) => results[c.name]![String(n)]!.checksPerSecond),
        results[c.name]!["64"]!.callsPerCheck,
        results[c.name]!["64"]!.p50Ms,
        round(results[c.name]!["64"]!.checksPerSecond / rlf64, 2),
      ]),
    );

    const races: Record<string, number[]> = {};
    for (const c of contenders) races[c.name] = await race(c);
    table(
      `Race: ${RACE.callers} concurrent callers, limit ${RACE.limit}, ${RACE.rounds} rounds`,
      ["limiter", "passed per round", "exactly 50 every round"],
      contenders.map((c) => [c.name, races[c.name]!.join(" "), races[c.name]!.every((n) => n === RACE.limit) ? "yes" : "NO"]),
    );

    const production = { port: 0, dynamoEndpoint: endpoint, tableName: "bench-main", throttleTableName: "bench-throttle", env: { APP_ENV: "production", THROTTLE_LIMIT: "100000000" } };
    const lat = await withSandbox(production, (sandbox) => pairedLatency(sandbox, endpoint, LATENCY_REQUESTS));
    const added = lat.on - lat.off;
    table(
      `Latency on GET /api/v1/accounts/{id} in the sandbox (p50 of ${LATENCY_REQUESTS} interleaved samples each)`,
      ["measure", "p50 ms"],
      [
        ["APP_ENV=production (throttled)", round(lat.on, 2)],
        ["APP_ENV=production, ENABLE_THROTTLE=false", round(lat.off, 2)],
        ["added by throttling", round(added, 2)],
        ["one DynamoDB UpdateItem round trip (the counter's call)", round(lat.update, 2)],
        ["one DynamoDB GetItem round trip", round(lat.get, 2)],
        ["added / one UpdateItem round trip", round(added / lat.update, 2)],
      ],
    );

    const report = {
      generatedAt: new Date().toISOString(),
      node: process.version,
      machine: { cores: cores(), cpu: cpuModel(), note: "DynamoDB Local (Java) shares these cores" },
      secondsPerCell: SECONDS,
      throughput: results,
      ratioAt64: round(results["conversa fixed"]!["64"]!.checksPerSecond / rlf64, 2),
      ratioAt64Sliding: round(results["conversa sliding"]!["64"]!.checksPerSecond / rlf64, 2),
      race: { ...RACE, passed: races },
      latency: {
        requests: LATENCY_REQUESTS,
        productionP50Ms: round(lat.on, 2),
        throttleOffP50Ms: round(lat.off, 2),
        addedP50Ms: round(added, 2),
        updateItemP50Ms: round(lat.update, 2),
        getItemP50Ms: round(lat.get, 2),
        addedInRoundTrips: round(added / lat.update, 2),
      },
    };
    console.log("");
    await writeResult("ratelimit", report);
    ours.client.destroy();
    theirs.client.destroy();
  });
}

await main();
