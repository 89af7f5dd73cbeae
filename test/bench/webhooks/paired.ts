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
import { makeAccount } from "../../support/fixtures.ts";
import { bootstrap90, fixed, quantile } from "../lib/stats.ts";
import { waitUntil } from "../lib/timing.ts";
import type { Bench, Caller } from "./context.ts";
import { awaitArrivals, firstArrivals, type Arrival } from "./receivers.ts";

export interface Paired {
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

export async function paired(bench: Bench, seconds: number): Promise<Paired> {
  const CHUNK_S = 5;
  const SETTLE_S = 3;
  const RATE = 10;
  const run = bench.nextRun();
  const other = await makeAccount("Bench paired");
  const arms: readonly { name: "x" | "y"; as: Caller }[] = [
    { name: "x", as: bench.admin },
    { name: "y", as: { accountId: other.accountId, key: other.adminKey } },
  ];
  const hookIds: { as: Caller; id: number }[] = [];
  for (const arm of arms) {
    for (let i = 0; i < 10; i++) {
      const path = arm.name === "y" && i === 0 ? `/sleepy/${run}/y/${i}` : `/r/${run}/${arm.name}/${i}`;
      hookIds.push({ as: arm.as, id: await bench.createHook(arm.as, path) });
    }
  }
  const started = new Map<string, { t: number; chunk: number; odd: boolean }>();
  const total = seconds * RATE;
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    await waitUntil(t0 + (i * 1000) / RATE);
    const arm = arms[i % 2]!;
    const settled = i >= SETTLE_S * RATE;
    const chunk = Math.floor(i / (CHUNK_S * RATE));
    const odd = Math.floor(i / 2) % 2 === 1;
    pending.push(
      (async () => {
        const t = performance.now();
        const inboxId = await bench.createInbox(arm.as, run);
        if (settled) started.set(`${arm.name}:${inboxId}`, { t, chunk, odd });
      })(),
    );
  }
  await Promise.all(pending);
  // Nine receivers per arm: webhook 0 is the sleeper in Y, and left out of X to match.
  const counted = (a: Arrival) => a.path.startsWith(`/r/${run}/`) && !a.path.endsWith("/0");
  const expected = started.size * 9;
  const first = firstArrivals(await awaitArrivals(bench.rx, counted, expected));
  const chunks = Math.ceil(total / (CHUNK_S * RATE));
  const perChunk = () => Array.from({ length: chunks }, () => [] as number[]);
  const lat = { x: perChunk(), y: perChunk() };
  const xOddEven = { odd: perChunk(), even: perChunk() };
  for (const a of first.values()) {
    const armName = a.path.split("/")[3] as "x" | "y";
    const s = started.get(`${armName}:${a.inboxId}`);
    if (!s) continue;
    lat[armName][s.chunk]!.push(a.at - s.t);
    if (armName === "x") xOddEven[s.odd ? "odd" : "even"][s.chunk]!.push(a.at - s.t);
  }
  for (const h of hookIds) await bench.deleteHook(h.as, h.id);
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
    pooledP99Ratio: fixed(ratioOf(lat.y, lat.x, every), 2),
    p50Ratio: fixed(quantile(all(lat.y, every), 0.5) / quantile(all(lat.x, every), 0.5), 2),
    pooledP99Ratio90: await interval(lat.y, lat.x),
    placeboPooledP99Ratio: fixed(ratioOf(xOddEven.odd, xOddEven.even, every), 2),
    placeboPooledP99Ratio90: await interval(xOddEven.odd, xOddEven.even),
  };
}
