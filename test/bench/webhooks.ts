/**
 * Webhook delivery benchmark (`npm run bench:webhooks`), in the sandbox (DynamoDB Local, fauxqs,
 * the stream and queue pollers, the real handler modules) with real receivers on 127.0.0.1.
 *
 * For 1, 10 and 50 webhooks per account: events are created through the API (POST inboxes ->
 * inbox_created) with a fixed number in flight; each receiver's 200 is timed against the start
 * of the API call of its event. Then a paced run (steady rate, light load) for latency alone,
 * two sustained ones (200 and 250 deliveries/s offered for 60 s: does the pipeline keep up?),
 * and the 10-webhook runs again with one receiver sleeping past WEBHOOK_TIMEOUT: the other nine's
 * p99 is compared with the all-healthy run of the same shape (ratios within one run). The paced
 * comparison is A-B-A (healthy, sleeping, healthy again; against the mean of the two healthy
 * runs), so that a drift of the machine or of DynamoDB Local's growing table over the ~3 minutes
 * is not counted as the sleeper's effect. Last, an alternating run (one webhook set, the tenth
 * receiver sleeping in half of 16 blocks of 15 s, ABBA BAAB BAAB ABBA) compares the two arms within
 * one stretch of time, with a bootstrap interval over blocks and an A-against-A placebo; and a
 * paired run: two accounts side by side, events interleaved one by one, ten healthy receivers in
 * one and nine plus the sleeper in the other, so that both arms live through the same seconds.
 * Prints a table and writes docs/bench/webhooks.json. Never asserts.
 */
import { createServer, type Server } from "node:http";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { ROOT } from "../../infra/build.ts";
import { ensureTable, localClient } from "../../infra/local/dynamo.ts";
import { db } from "../../shared/db/client.ts";
import { mainTable } from "../../shared/db/table.ts";
import { startSandbox, type Sandbox } from "../../infra/local/sandbox.ts";
import { makeAccount } from "../support/fixtures.ts";

process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
const OUT_FILE = join(ROOT, "docs", "bench", "webhooks.json");
/**
 * `BENCH_ALTERNATING_ROUNDS=N` runs only the alternating comparison, N rounds of 16 blocks (4 min
 * each), for a tighter estimate of the sleeper's effect; it writes webhooks-alternating.json.
 */
const ALT_ONLY_ROUNDS = Number(process.env["BENCH_ALTERNATING_ROUNDS"] ?? 0);
const ALT_OUT_FILE = join(ROOT, "docs", "bench", "webhooks-alternating.json");
/**
 * `BENCH_PAIRED_SECONDS=N` runs only the paired comparison for N seconds (default in the full run:
 * 240); it writes webhooks-paired.json.
 */
const PAIRED_ONLY_SECONDS = Number(process.env["BENCH_PAIRED_SECONDS"] ?? 0);
const PAIRED_OUT_FILE = join(ROOT, "docs", "bench", "webhooks-paired.json");
/** WEBHOOK_TIMEOUT for the run, and the sleeping receiver's delay (past it). */
const TIMEOUT_S = 3;
const SLEEP_MS = 4000;

interface Arrival {
  readonly at: number;
  readonly path: string;
  readonly inboxId: number;
  readonly webhookId: string;
}

/**
 * One HTTP server, one path per webhook; `/sleepy/...` answers after SLEEP_MS, `/toggle/...`
 * too while `toggle.sleeping` is set (the alternating scenario), at once otherwise.
 */
async function startReceivers(): Promise<{ server: Server; base: string; arrivals: Arrival[]; toggle: { sleeping: boolean } }> {
  const arrivals: Arrival[] = [];
  const toggle = { sleeping: false };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string };
      const path = req.url ?? "";
      const reply = () => res.writeHead(200).end();
      if (path.startsWith("/sleepy") || (path.startsWith("/toggle") && toggle.sleeping)) setTimeout(reply, SLEEP_MS);
      else if (path.startsWith("/toggle")) reply();
      else {
        reply();
        arrivals.push({ at, path, inboxId: Number(body.id), webhookId: String(req.headers["webhook-id"]) });
      }
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, arrivals, toggle };
}

const quantile = (xs: readonly number[], q: number): number => {
  if (!xs.length) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};

/**
 * 5th and 95th percentiles of `stat` over 2000 bootstrap draws; `stat` resamples with the
 * generator it is given (deterministic: the interval is reproducible from the data). It yields to
 * the event loop as it goes: the sandbox in this process is still delivering retries meanwhile.
 */
async function bootstrap90(stat: (resample: (units: readonly number[]) => number[]) => number, seed: number): Promise<[number, number]> {
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const resample = (units: readonly number[]) => units.map(() => units[Math.floor(rand() * units.length)]!);
  const out: number[] = [];
  for (let k = 0; k < 2000; k++) {
    out.push(stat(resample));
    if (k % 20 === 19) await new Promise((r) => setImmediate(r));
  }
  return [Number(quantile(out, 0.05).toFixed(2)), Number(quantile(out, 0.95).toFixed(2))];
}

/**
 * CPU time so far, in ms, of this process (API emulation, handlers, pollers, receivers) and of
 * DynamoDB Local's Java process (from /proc: Linux, clock ticks of 10 ms; undefined elsewhere).
 */
function cpuNow(dynamoPid: number | undefined): { node: number; dynamo: number | undefined } {
  const u = process.cpuUsage();
  let dynamo: number | undefined;
  try {
    const f = readFileSync(`/proc/${dynamoPid}/stat`, "utf8").split(") ")[1]!.split(" ");
    dynamo = (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    dynamo = undefined;
  }
  return { node: (u.user + u.system) / 1000, dynamo };
}

interface Row {
  readonly scenario: string;
  readonly webhooks: number;
  readonly events: number;
  readonly deliveries: number;
  readonly missing: number;
  /** Arrivals of a webhook-id already received: a retry after a timeout the receiver did answer (at-least-once). */
  readonly redelivered: number;
  readonly seconds: number;
  readonly eventsPerSec: number;
  readonly deliveriesPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

interface AlternatingArm {
  readonly n: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly medianBlockP99Ms: number;
  /** CPU per event over the arm's blocks: this process, and DynamoDB Local (null off Linux). */
  readonly cpuMsPerEvent: { node: number; dynamo: number | null };
}

interface Alternating {
  readonly blockSeconds: number;
  readonly settleSeconds: number;
  readonly missing: number;
  readonly blocks: readonly { arm: "A" | "B"; n: number; p50Ms: number; p99Ms: number }[];
  /** A blocks: the tenth receiver answers at once. */
  readonly healthy: AlternatingArm;
  /** B blocks: the tenth receiver sleeps past the timeout. */
  readonly sleeping: AlternatingArm;
  readonly pooledP99Ratio: number;
  readonly medianBlockP99Ratio: number;
  /** 5th and 95th percentiles of the pooled ratio over 2000 resamplings of each arm's blocks. */
  readonly pooledP99Ratio90: readonly [number, number];
  /** The same estimator between the A blocks themselves (alternate ones): the noise floor. */
  readonly placeboPooledP99Ratio: number;
}

interface Paired {
  readonly seconds: number;
  readonly chunkSeconds: number;
  readonly eventsPerSec: number;
  readonly missing: number;
  /** Account X: ten healthy receivers; the figures are those of nine of them. */
  readonly healthy: { n: number; p50Ms: number; p99Ms: number };
  /** Account Y: nine healthy receivers and one sleeping past the timeout; the nine's figures. */
  readonly sleeping: { n: number; p50Ms: number; p99Ms: number };
  readonly pooledP99Ratio: number;
  readonly p50Ratio: number;
  /** 5th and 95th percentiles of the ratio over 2000 resamplings of time chunks (both arms together). */
  readonly pooledP99Ratio90: readonly [number, number];
  /** X's odd events against X's even ones: the same estimator between arms that differ by nothing. */
  readonly placeboPooledP99Ratio: number;
  readonly placeboPooledP99Ratio90: readonly [number, number];
}

async function main(): Promise<void> {
  // The machine is shared: the load average is part of the result.
  const loadavg1mAtStart = Number(loadavg()[0]!.toFixed(1));
  const sandbox: Sandbox = await startSandbox({ port: 0, env: { WEBHOOK_TIMEOUT: String(TIMEOUT_S), LOG_LEVEL: "warn" } });
  const { accountId, adminApiKey } = sandbox.info;
  const api = sandbox.info.apiBase.replace("localhost", "127.0.0.1");
  const rx = await startReceivers();
  const callAs = async (as: { accountId: number; key: string }, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}/api/v1/accounts/${as.accountId}${path}`, {
      method,
      headers: { "content-type": "application/json", api_access_token: as.key },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as any) : undefined;
  };
  const call = (method: string, path: string, body?: unknown) => callAs({ accountId, key: adminApiKey }, method, path, body);

  /**
   * Calibration: conditional PutItems/s this DynamoDB Local sustains right now (50 in flight, on a
   * table shaped like the main one, stream on). A delivery costs two writes (the fan-out's claim
   * and the attempt's record) plus reads, so deliveries/s is read against this ceiling.
   */
  async function putCeiling(): Promise<number> {
    const client = localClient(sandbox.dynamoEndpoint);
    await ensureTable(client, "bench-calibration", mainTable);
    client.destroy();
    const total = 1000;
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < total) {
          const i = next++;
          await db().send(
            new PutCommand({ TableName: "bench-calibration", Item: { pk: `CAL#${Date.now()}#${i}`, sk: "CAL", payload: "x".repeat(600) }, ConditionExpression: "attribute_not_exists(pk)" }),
          );
        }
      }),
    );
    return Math.round(total / ((performance.now() - t) / 1000));
  }

  let run = 0;
  async function scenario(name: string, opts: { webhooks: number; sleepy?: boolean; events: number; inFlight?: number; ratePerSec?: number }): Promise<Row> {
    run++;
    const hookIds: number[] = [];
    for (let i = 0; i < opts.webhooks; i++) {
      const path = opts.sleepy && i === 0 ? `/sleepy/${run}/${i}` : `/r/${run}/${i}`;
      hookIds.push((await call("POST", "/webhooks", { url: `${rx.base}${path}`, subscriptions: ["inbox_created"] })).payload.webhook.id);
    }
    const healthy = opts.webhooks - (opts.sleepy ? 1 : 0);
    const started = new Map<number, number>();
    const prefix = `/r/${run}/`;
    const mine = () => rx.arrivals.filter((a) => a.path.startsWith(prefix));
    const t0 = performance.now();
    const fire = async () => {
      const t = performance.now();
      const inbox = (await call("POST", "/inboxes", { name: `bench ${run}`, channel: { type: "api" } })) as { id: number };
      started.set(inbox.id, t);
    };
    if (opts.ratePerSec) {
      const pending: Promise<void>[] = [];
      for (let i = 0; i < opts.events; i++) {
        const due = t0 + (i * 1000) / opts.ratePerSec;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        pending.push(fire());
      }
      await Promise.all(pending);
    } else {
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.inFlight ?? 8 }, async () => {
          while (next < opts.events) {
            next++;
            await fire();
          }
        }),
      );
    }
    const expected = opts.events * healthy;
    const deadline = performance.now() + 30_000;
    const unique = () => new Set(mine().map((a) => a.webhookId)).size;
    while (unique() < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const all = mine();
    // First arrival of each webhook-id: what a deduplicating receiver sees.
    const firstById = new Map<string, Arrival>();
    for (const a of all) if (!firstById.has(a.webhookId)) firstById.set(a.webhookId, a);
    const got = [...firstById.values()];
    const latencies = got.flatMap((a) => {
      const s = started.get(a.inboxId);
      return s === undefined ? [] : [a.at - s];
    });
    const last = Math.max(...got.map((a) => a.at));
    const seconds = (last - t0) / 1000;

    const row: Row = {
      scenario: name,
      webhooks: opts.webhooks,
      events: opts.events,
      deliveries: got.length,
      missing: Math.max(0, expected - got.length),
      redelivered: all.length - got.length,
      seconds: Number(seconds.toFixed(2)),
      eventsPerSec: Number((opts.events / seconds).toFixed(1)),
      deliveriesPerSec: Number((got.length / seconds).toFixed(1)),
      p50Ms: Math.round(quantile(latencies, 0.5)),
      p99Ms: Math.round(quantile(latencies, 0.99)),
    };
    for (const id of hookIds) await call("DELETE", `/webhooks/${id}`);
    console.error(`  ${name}: done`);
    return row;
  }

  /**
   * The sleeper's effect measured against drift: one run of 10 webhooks at 10 events/s in blocks
   * of BLOCK_S seconds, the tenth receiver sleeping past the timeout in the B blocks only, in the
   * order ABBA BAAB BAAB ABBA (linear and quadratic drift weigh on both arms alike). The first
   * SETTLE_S seconds of each block are left out (the switch). Compared: the nine healthy receivers'
   * p99 per arm (pooled), the median of the blocks' p99s (one stall moves one block, not the
   * median), a bootstrap 90 % interval of the pooled ratio (blocks resampled within each arm), and
   * a placebo: the same pooled ratio between alternate A blocks, which differ by nothing but time.
   * Retries of a B block's events may land in the next block: that spill-over only narrows the gap.
   */
  async function alternating(rounds = 1): Promise<Alternating> {
    const BLOCK_S = 15;
    const SETTLE_S = 2;
    const order = [..."ABBABAABBAABABBA".repeat(rounds)] as ("A" | "B")[];
    run++;
    const hookIds: number[] = [];
    for (let i = 0; i < 10; i++) {
      const path = i === 0 ? `/toggle/${run}/${i}` : `/r/${run}/${i}`;
      hookIds.push((await call("POST", "/webhooks", { url: `${rx.base}${path}`, subscriptions: ["inbox_created"] })).payload.webhook.id);
    }
    const started = new Map<number, { t: number; block: number }>();
    const t0 = performance.now();
    const total = order.length * BLOCK_S * 10;
    const pending: Promise<void>[] = [];
    // CPU at each block's start, and at the end: what the sleeper adds to the shared cores.
    const cpuAt: ReturnType<typeof cpuNow>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + i * 100;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (i % (BLOCK_S * 10) === 0) cpuAt.push(cpuNow(sandbox.dynamoPid));
      const block = Math.floor(i / (BLOCK_S * 10));
      rx.toggle.sleeping = order[block] === "B";
      const settled = i % (BLOCK_S * 10) >= SETTLE_S * 10;
      pending.push(
        (async () => {
          const t = performance.now();
          const inbox = (await call("POST", "/inboxes", { name: `bench ${run}`, channel: { type: "api" } })) as { id: number };
          if (settled) started.set(inbox.id, { t, block });
        })(),
      );
    }
    await new Promise((r) => setTimeout(r, 100));
    cpuAt.push(cpuNow(sandbox.dynamoPid));
    await Promise.all(pending);
    rx.toggle.sleeping = false;
    const prefix = `/r/${run}/`;
    const expected = total * 9;
    const deadline = performance.now() + 30_000;
    const mine = () => rx.arrivals.filter((a) => a.path.startsWith(prefix));
    while (new Set(mine().map((a) => a.webhookId)).size < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const first = new Map<string, Arrival>();
    for (const a of mine()) if (!first.has(a.webhookId)) first.set(a.webhookId, a);
    const perBlock = order.map(() => [] as number[]);
    for (const a of first.values()) {
      const s = started.get(a.inboxId);
      if (s) perBlock[s.block]!.push(a.at - s.t);
    }
    for (const id of hookIds) await call("DELETE", `/webhooks/${id}`);
    const blocks = order.map((arm, i) => ({ arm, n: perBlock[i]!.length, p50Ms: Math.round(quantile(perBlock[i]!, 0.5)), p99Ms: Math.round(quantile(perBlock[i]!, 0.99)) }));
    const median = (xs: number[]) => {
      const v = [...xs].sort((a, b) => a - b);
      return v.length % 2 ? v[v.length >> 1]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
    };
    const pooledP99 = (blockIdx: number[]) => quantile(blockIdx.flatMap((i) => perBlock[i]!), 0.99);
    const idx = (x: "A" | "B") => order.flatMap((a, i) => (a === x ? [i] : []));
    const cpuPerEvent = (x: "A" | "B", k: "node" | "dynamo") => {
      const ix = idx(x);
      const ms = ix.map((i) => (cpuAt[i + 1]![k] ?? NaN) - (cpuAt[i]![k] ?? NaN)).reduce((a, b) => a + b, 0);
      return Number.isNaN(ms) ? null : Number((ms / (ix.length * BLOCK_S * 10)).toFixed(1));
    };
    const arm = (x: "A" | "B"): AlternatingArm => {
      const lat = idx(x).flatMap((i) => perBlock[i]!);
      return {
        n: lat.length,
        p50Ms: Math.round(quantile(lat, 0.5)),
        p99Ms: Math.round(quantile(lat, 0.99)),
        medianBlockP99Ms: median(blocks.filter((b) => b.arm === x).map((b) => b.p99Ms)),
        cpuMsPerEvent: { node: cpuPerEvent(x, "node")!, dynamo: cpuPerEvent(x, "dynamo") },
      };
    };
    const A = arm("A");
    const B = arm("B");
    // Bootstrap over blocks, each arm's blocks resampled within the arm.
    const interval = await bootstrap90((resample) => pooledP99(resample(idx("B"))) / pooledP99(resample(idx("A"))), 12345);
    const aIdx = idx("A");
    const placebo = pooledP99(aIdx.filter((_, k) => k % 2 === 1)) / pooledP99(aIdx.filter((_, k) => k % 2 === 0));
    console.error("  alternating: done");
    return {
      blockSeconds: BLOCK_S,
      settleSeconds: SETTLE_S,
      missing: Math.max(0, expected - first.size),
      blocks,
      healthy: A,
      sleeping: B,
      pooledP99Ratio: Number((B.p99Ms / A.p99Ms).toFixed(2)),
      medianBlockP99Ratio: Number((B.medianBlockP99Ms / A.medianBlockP99Ms).toFixed(2)),
      pooledP99Ratio90: interval,
      placeboPooledP99Ratio: Number(placebo.toFixed(2)),
    };
  }

  /**
   * The sleeper's effect with the machine's swings cancelled: two accounts side by side for
   * `seconds`, their events interleaved one by one (10 events/s in all, as the paced runs). X has
   * ten healthy receivers; Y has nine and one that sleeps past the timeout. Both arms live through
   * the same stalls of the same seconds, so what differs between them is what Y's sleeper does to
   * the deliveries of Y's own events (its nine siblings), beside the same pollers and queues. Work
   * the sleeper adds to the whole process (its held sockets, timeouts, retries) weighs on both arms
   * alike: the alternating comparison is the one that sees that. The interval resamples 5-s chunks
   * of time with both arms in them; the placebo splits X's own events into odd and even.
   */
  async function paired(seconds: number): Promise<Paired> {
    const CHUNK_S = 5;
    const SETTLE_S = 3;
    const RATE = 10;
    run++;
    const other = await makeAccount("Bench paired");
    const arms = [
      { name: "x", as: { accountId, key: adminApiKey } },
      { name: "y", as: { accountId: other.accountId, key: other.adminKey } },
    ] as const;
    const hookIds: { arm: (typeof arms)[number]; id: number }[] = [];
    for (const arm of arms) {
      for (let i = 0; i < 10; i++) {
        const path = arm.name === "y" && i === 0 ? `/sleepy/${run}/y/${i}` : `/r/${run}/${arm.name}/${i}`;
        hookIds.push({ arm, id: (await callAs(arm.as, "POST", "/webhooks", { url: `${rx.base}${path}`, subscriptions: ["inbox_created"] })).payload.webhook.id });
      }
    }
    const started = new Map<string, { t: number; chunk: number; odd: boolean }>();
    const total = seconds * RATE;
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const arm = arms[i % 2]!;
      const settled = i >= SETTLE_S * RATE;
      const chunk = Math.floor(i / (CHUNK_S * RATE));
      const odd = Math.floor(i / 2) % 2 === 1;
      pending.push(
        (async () => {
          const t = performance.now();
          const inbox = (await callAs(arm.as, "POST", "/inboxes", { name: `bench ${run}`, channel: { type: "api" } })) as { id: number };
          if (settled) started.set(`${arm.name}:${inbox.id}`, { t, chunk, odd });
        })(),
      );
    }
    await Promise.all(pending);
    // Nine receivers per arm: webhook 0 is the sleeper in Y, and left out of X to match.
    const counted = (a: Arrival) => a.path.startsWith(`/r/${run}/`) && !a.path.endsWith("/0");
    const expected = started.size * 9;
    const deadline = performance.now() + 30_000;
    const mine = () => rx.arrivals.filter(counted);
    while (new Set(mine().map((a) => a.webhookId)).size < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const first = new Map<string, Arrival>();
    for (const a of mine()) if (!first.has(a.webhookId)) first.set(a.webhookId, a);
    const chunks = Math.ceil(total / (CHUNK_S * RATE));
    const lat = { x: Array.from({ length: chunks }, () => [] as number[]), y: Array.from({ length: chunks }, () => [] as number[]) };
    const xOddEven = { odd: Array.from({ length: chunks }, () => [] as number[]), even: Array.from({ length: chunks }, () => [] as number[]) };
    for (const a of first.values()) {
      const armName = a.path.split("/")[3] as "x" | "y";
      const s = started.get(`${armName}:${a.inboxId}`);
      if (!s) continue;
      lat[armName][s.chunk]!.push(a.at - s.t);
      if (armName === "x") xOddEven[s.odd ? "odd" : "even"][s.chunk]!.push(a.at - s.t);
    }
    for (const h of hookIds) await callAs(h.arm.as, "DELETE", `/webhooks/${h.id}`);
    const all = (per: number[][], ix: number[]) => ix.flatMap((c) => per[c]!);
    const every = Array.from({ length: chunks }, (_, c) => c);
    const ratioOf = (b: number[][], a: number[][], ix: number[]) => quantile(all(b, ix), 0.99) / quantile(all(a, ix), 0.99);
    // Chunks are resampled with both arms in them: a stall counts on both sides or on neither.
    const interval = (b: number[][], a: number[][]) => bootstrap90((resample) => ratioOf(b, a, resample(every)), 54321);
    const figures = (per: number[][]) => {
      const xs = all(per, every);
      return { n: xs.length, p50Ms: Math.round(quantile(xs, 0.5)), p99Ms: Math.round(quantile(xs, 0.99)) };
    };
    const healthy = figures(lat.x);
    const sleeping = figures(lat.y);
    console.error("  paired: done");
    return {
      seconds,
      chunkSeconds: CHUNK_S,
      eventsPerSec: RATE,
      missing: Math.max(0, expected - first.size),
      healthy,
      sleeping,
      pooledP99Ratio: Number(ratioOf(lat.y, lat.x, every).toFixed(2)),
      p50Ratio: Number((quantile(all(lat.y, every), 0.5) / quantile(all(lat.x, every), 0.5)).toFixed(2)),
      pooledP99Ratio90: await interval(lat.y, lat.x),
      placeboPooledP99Ratio: Number(ratioOf(xOddEven.odd, xOddEven.even, every).toFixed(2)),
      placeboPooledP99Ratio90: await interval(xOddEven.odd, xOddEven.even),
    };
  }
  const describeCpu = (alt: Alternating) => {
    const [a, b] = [alt.healthy.cpuMsPerEvent, alt.sleeping.cpuMsPerEvent];
    const r = (x: number | null, y: number | null) => (x !== null && y !== null ? `x${(x / y).toFixed(2)}` : "n/a");
    return `CPU per event, healthy / sleeping blocks: this process ${a.node} / ${b.node} ms (${r(b.node, a.node)}), DynamoDB Local ${a.dynamo ?? "n/a"} / ${b.dynamo ?? "n/a"} ms (${r(b.dynamo, a.dynamo)})`;
  };
  const describePaired = (p: Paired) =>
    `paired ${p.seconds} s (X: ten healthy receivers, Y: nine and one sleeping; events interleaved): nine receivers' p99 Y ${p.sleeping.p99Ms} / X ${p.healthy.p99Ms} ms` +
    ` = ${p.pooledP99Ratio} (90 % interval ${p.pooledP99Ratio90.join("-")}); p50 ${p.sleeping.p50Ms} / ${p.healthy.p50Ms} ms = ${p.p50Ratio};` +
    ` placebo (X odd / even events) ${p.placeboPooledP99Ratio} (${p.placeboPooledP99Ratio90.join("-")}); missing ${p.missing}`;

  /** The file of a comparison run alone: when, where, with what settings, and its figures. */
  const writeAlone = async (file: string, figures: Record<string, unknown>) => {
    await mkdir(join(ROOT, "docs", "bench"), { recursive: true });
    const machine = { cpus: availableParallelism(), model: cpus()[0]?.model ?? "unknown", node: process.version, loadavg1mAtStart, loadavg1mAtEnd: Number(loadavg()[0]!.toFixed(1)) };
    await writeFile(file, `${JSON.stringify({ generatedAt: new Date().toISOString(), machine, settings: { WEBHOOK_TIMEOUT: TIMEOUT_S, sleepingReceiverMs: SLEEP_MS }, ...figures }, null, 2)}\n`);
    console.log(`written to ${file}`);
  };

  try {
    // Warm-up: module imports, connections, DynamoDB Local's JIT.
    await scenario("warm-up", { webhooks: 5, events: 30 });
    if (PAIRED_ONLY_SECONDS > 0) {
      const p = await paired(PAIRED_ONLY_SECONDS);
      console.log(describePaired(p));
      await writeAlone(PAIRED_OUT_FILE, { paired: p });
      return;
    }
    if (ALT_ONLY_ROUNDS > 0) {
      const alt = await alternating(ALT_ONLY_ROUNDS);
      console.log(
        `alternating ${alt.blocks.length} blocks of ${alt.blockSeconds} s: A p99 ${alt.healthy.p99Ms} ms, B p99 ${alt.sleeping.p99Ms} ms;` +
          ` pooled ratio ${alt.pooledP99Ratio} (90 % interval ${alt.pooledP99Ratio90.join("-")}); median block p99 ratio ${alt.medianBlockP99Ratio};` +
          ` placebo ${alt.placeboPooledP99Ratio}; missing ${alt.missing}`,
      );
      console.log(describeCpu(alt));
      await writeAlone(ALT_OUT_FILE, { alternating: alt });
      return;
    }
    const ceilingBefore = await putCeiling();
    const rows: Row[] = [];
    rows.push(await scenario("throughput, 1 webhook", { webhooks: 1, events: 300 }));
    rows.push(await scenario("throughput, 10 webhooks", { webhooks: 10, events: 100 }));
    rows.push(await scenario("throughput, 10 webhooks, 1 sleeping", { webhooks: 10, sleepy: true, events: 100 }));
    rows.push(await scenario("throughput, 50 webhooks", { webhooks: 50, events: 40 }));
    // Paced runs are long enough (60 s) for a p99 that is not one or two samples.
    rows.push(await scenario("paced 10/s, 10 webhooks", { webhooks: 10, events: 600, ratePerSec: 10 }));
    rows.push(await scenario("paced 10/s, 10 webhooks, 1 sleeping", { webhooks: 10, sleepy: true, events: 600, ratePerSec: 10 }));
    rows.push(await scenario("paced 10/s, 10 webhooks (again)", { webhooks: 10, events: 600, ratePerSec: 10 }));
    // "Sustained": 200 and 250 deliveries/s offered for a minute; a backlog would show in p50/p99.
    rows.push(await scenario("sustained 60 s, 10 webhooks, 20 events/s", { webhooks: 10, events: 1200, ratePerSec: 20 }));
    rows.push(await scenario("sustained 60 s, 50 webhooks, 5 events/s", { webhooks: 50, events: 300, ratePerSec: 5 }));
    const alt = await alternating();
    const pair = await paired(240);

    const cols: (keyof Row)[] = ["scenario", "webhooks", "events", "deliveries", "missing", "redelivered", "seconds", "eventsPerSec", "deliveriesPerSec", "p50Ms", "p99Ms"];
    const width = (c: keyof Row) => Math.max(String(c).length, ...rows.map((r) => String(r[c]).length));
    console.log(cols.map((c) => String(c).padEnd(width(c))).join("  "));
    for (const r of rows) console.log(cols.map((c) => String(r[c]).padEnd(width(c))).join("  "));
    const ratio = (a: Row | undefined, b: Row | undefined) => (a && b ? Number((a.p99Ms / b.p99Ms).toFixed(2)) : NaN);
    const ceilingAfter = await putCeiling();
    const ceiling = Math.round((ceilingBefore + ceilingAfter) / 2);
    const best = Math.max(...rows.map((r) => r.deliveriesPerSec));
    const ratios = {
      dynamoPutsPerSecCeiling: ceiling,
      bestDeliveriesPerSecOverPutCeiling: Number((best / ceiling).toFixed(2)),
      throughputSleepyP99OverHealthyP99: ratio(rows[2], rows[1]),
      pacedSleepyP99OverHealthyP99: Number((rows[5]!.p99Ms / ((rows[4]!.p99Ms + rows[6]!.p99Ms) / 2)).toFixed(2)),
      pacedSecondHealthyP99OverFirst: ratio(rows[6], rows[4]),
    };
    console.log(`\nDynamoDB Local ceiling: ${ceilingBefore} / ${ceilingAfter} conditional puts/s (before / after); best deliveries/s = ${ratios.bestDeliveriesPerSecOverPutCeiling} x that`);
    console.log(`load average (1 min) at start ${loadavg1mAtStart}, at end ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} CPUs`);
    console.log(
      `nine healthy receivers' p99 with one sleeping / without: throughput ${ratios.throughputSleepyP99OverHealthyP99},` +
        ` paced ${ratios.pacedSleepyP99OverHealthyP99} (vs the mean of the healthy runs before and after; after / before = ${ratios.pacedSecondHealthyP99OverFirst})`,
    );
    console.log(
      `alternating ${alt.blocks.length} blocks of ${alt.blockSeconds} s: per block ` +
        alt.blocks.map((b) => `${b.arm} ${b.p99Ms}`).join(", ") +
        ` ms p99; pooled p99 ${alt.sleeping.p99Ms} / ${alt.healthy.p99Ms} ms = ${alt.pooledP99Ratio},` +
        ` 90 % interval ${alt.pooledP99Ratio90.join("-")};` +
        ` median block p99 ${alt.sleeping.medianBlockP99Ms} / ${alt.healthy.medianBlockP99Ms} ms = ${alt.medianBlockP99Ratio};` +
        ` placebo (alternate A blocks) ${alt.placeboPooledP99Ratio}; missing ${alt.missing}`,
    );
    console.log(describeCpu(alt));
    console.log(describePaired(pair));
    await mkdir(join(ROOT, "docs", "bench"), { recursive: true });
    await writeFile(
      OUT_FILE,
      `${JSON.stringify(
        {
          generatedAt: new Date().toISOString(),
          machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? "unknown", node: process.version, loadavg1mAtEnd: Number(loadavg()[0]!.toFixed(1)), loadavg1mAtStart },
          settings: { WEBHOOK_TIMEOUT: TIMEOUT_S, sleepingReceiverMs: SLEEP_MS, apiCallsInFlight: 8 },
          rows,
          alternating: alt,
          paired: pair,
          ratios,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`written to ${OUT_FILE}`);
  } finally {
    rx.server.closeAllConnections();
    rx.server.close();
    await sandbox.stop();
  }
}

await main();
