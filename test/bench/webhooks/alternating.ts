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
import { readFileSync } from "node:fs";
import { bootstrap90, fixed, median, quantile } from "../lib/stats.ts";
import { sleep, waitUntil } from "../lib/timing.ts";
import type { Bench } from "./context.ts";
import { awaitArrivals, firstArrivals } from "./receivers.ts";

export interface AlternatingArm {
  readonly n: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly medianBlockP99Ms: number;
  /** CPU per event over the arm's blocks: this process, and DynamoDB Local (null off Linux). */
  readonly cpuMsPerEvent: { node: number; dynamo: number | null };
}

export interface Alternating {
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

/** `blockSeconds` other than 15 only for a quick check of the whole run (BENCH_WEBHOOKS_SCALE). */
export async function alternating(bench: Bench, rounds = 1, blockSeconds = 15): Promise<Alternating> {
  const BLOCK_S = blockSeconds;
  const SETTLE_S = 2;
  const order = [..."ABBABAABBAABABBA".repeat(rounds)] as ("A" | "B")[];
  const { rx, sandbox, admin } = bench;
  const run = bench.nextRun();
  const hookIds: number[] = [];
  for (let i = 0; i < 10; i++) hookIds.push(await bench.createHook(admin, i === 0 ? `/toggle/${run}/${i}` : `/r/${run}/${i}`));
  const started = new Map<number, { t: number; block: number }>();
  const t0 = performance.now();
  const total = order.length * BLOCK_S * 10;
  const pending: Promise<void>[] = [];
  // CPU at each block's start, and at the end: what the sleeper adds to the shared cores.
  const cpuAt: ReturnType<typeof cpuNow>[] = [];
  for (let i = 0; i < total; i++) {
    await waitUntil(t0 + i * 100);
    if (i % (BLOCK_S * 10) === 0) cpuAt.push(cpuNow(sandbox.dynamoPid));
    const block = Math.floor(i / (BLOCK_S * 10));
    rx.toggle.sleeping = order[block] === "B";
    const settled = i % (BLOCK_S * 10) >= SETTLE_S * 10;
    pending.push(
      (async () => {
        const t = performance.now();
        const inboxId = await bench.createInbox(admin, run);
        if (settled) started.set(inboxId, { t, block });
      })(),
    );
  }
  await sleep(100);
  cpuAt.push(cpuNow(sandbox.dynamoPid));
  await Promise.all(pending);
  rx.toggle.sleeping = false;
  const prefix = `/r/${run}/`;
  const expected = total * 9;
  const first = firstArrivals(await awaitArrivals(rx, (a) => a.path.startsWith(prefix), expected));
  const perBlock = order.map(() => [] as number[]);
  for (const a of first.values()) {
    const s = started.get(a.inboxId);
    if (s) perBlock[s.block]!.push(a.at - s.t);
  }
  for (const id of hookIds) await bench.deleteHook(admin, id);
  const blocks = order.map((arm, i) => ({ arm, n: perBlock[i]!.length, p50Ms: Math.round(quantile(perBlock[i]!, 0.5)), p99Ms: Math.round(quantile(perBlock[i]!, 0.99)) }));
  const pooledP99 = (blockIdx: number[]) => quantile(blockIdx.flatMap((i) => perBlock[i]!), 0.99);
  const idx = (x: "A" | "B") => order.flatMap((a, i) => (a === x ? [i] : []));
  const cpuPerEvent = (x: "A" | "B", k: "node" | "dynamo") => {
    const ix = idx(x);
    const ms = ix.map((i) => (cpuAt[i + 1]![k] ?? NaN) - (cpuAt[i]![k] ?? NaN)).reduce((a, b) => a + b, 0);
    return Number.isNaN(ms) ? null : fixed(ms / (ix.length * BLOCK_S * 10), 1);
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
    pooledP99Ratio: fixed(B.p99Ms / A.p99Ms, 2),
    medianBlockP99Ratio: fixed(B.medianBlockP99Ms / A.medianBlockP99Ms, 2),
    pooledP99Ratio90: interval,
    placeboPooledP99Ratio: fixed(placebo, 2),
  };
}
