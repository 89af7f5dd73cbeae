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
 * is not counted as the sleeper's effect. Last, an alternating run (webhooks/alternating.ts) and a
 * paired run (webhooks/paired.ts) compare the sleeper's arm with a healthy one living through the
 * same stretch of time. Prints a table and writes docs/bench/webhooks.json. Never asserts.
 *
 * `BENCH_ALTERNATING_ROUNDS=N` runs only the alternating comparison, N rounds of 16 blocks (4 min
 * each), for a tighter estimate of the sleeper's effect; it writes webhooks-alternating.json.
 * `BENCH_PAIRED_SECONDS=N` runs only the paired comparison for N seconds (default in the full run:
 * 240); it writes webhooks-paired.json.
 * `BENCH_RATE_LIMITED_EVENTS=N` runs only the pacing comparison: ten webhooks, N events at
 * `BENCH_RATE_LIMITED_RATE` per second (default 10), the first webhook's receiver with a
 * `rate_limit` of half that (a backlog builds up for it) or unpaced, A-B-A;
 * the other nine's p50 and p99 with the paced one over the mean of the two runs without it. It
 * writes webhooks-rate-limited.json.
 * `BENCH_WEBHOOKS_SCALE=F` (0 < F < 1) scales every count and duration of the full run by F: a
 * quick check that the whole run works, not a measurement (write it with BENCH_OUT_DIR elsewhere).
 */
import { fixed, mean } from "./lib/stats.ts";
import { cores, loadavg1m } from "./lib/output.ts";
import { withSandbox } from "./lib/sandbox.ts";
import { alternating } from "./webhooks/alternating.ts";
import { putCeiling } from "./webhooks/calibration.ts";
import { makeBench, type Bench } from "./webhooks/context.ts";
import { paired } from "./webhooks/paired.ts";
import { startReceivers, stopReceivers, TIMEOUT_S } from "./webhooks/receivers.ts";
import { describeAlternating, describeCpu, describePaired, printRows, writeAlone, writeFull } from "./webhooks/report.ts";
import { scenario, type Row } from "./webhooks/scenario.ts";

const ALT_ONLY_ROUNDS = Number(process.env["BENCH_ALTERNATING_ROUNDS"] ?? 0);
const PAIRED_ONLY_SECONDS = Number(process.env["BENCH_PAIRED_SECONDS"] ?? 0);
const RATE_LIMITED_EVENTS = Number(process.env["BENCH_RATE_LIMITED_EVENTS"] ?? 0);
/** Events per second of the pacing comparison (default 10); the paced receiver gets half of it. */
const RATE_LIMITED_RATE = Math.max(2, Number(process.env["BENCH_RATE_LIMITED_RATE"] ?? 10));
const SCALE_ENV = Number(process.env["BENCH_WEBHOOKS_SCALE"] ?? 1);
const SCALE = Number.isFinite(SCALE_ENV) && SCALE_ENV > 0 ? Math.min(1, SCALE_ENV) : 1;
const scaled = (n: number) => Math.max(1, Math.round(n * SCALE));

/** Every row, the two comparisons, the ratios: printed and written to webhooks.json. */
async function fullRun(bench: Bench, loadavg1mAtStart: number): Promise<void> {
  const ceilingBefore = await putCeiling(bench.sandbox);
  const row = (name: string, opts: Parameters<typeof scenario>[2]) => scenario(bench, name, { ...opts, events: scaled(opts.events) });
  const throughput1 = await row("throughput, 1 webhook", { webhooks: 1, events: 300 });
  const throughput10 = await row("throughput, 10 webhooks", { webhooks: 10, events: 100 });
  const throughputSleepy = await row("throughput, 10 webhooks, 1 sleeping", { webhooks: 10, sleepy: true, events: 100 });
  const throughput50 = await row("throughput, 50 webhooks", { webhooks: 50, events: 40 });
  // Paced runs are long enough (60 s) for a p99 that is not one or two samples.
  const paced = await row("paced 10/s, 10 webhooks", { webhooks: 10, events: 600, ratePerSec: 10 });
  const pacedSleepy = await row("paced 10/s, 10 webhooks, 1 sleeping", { webhooks: 10, sleepy: true, events: 600, ratePerSec: 10 });
  const pacedAgain = await row("paced 10/s, 10 webhooks (again)", { webhooks: 10, events: 600, ratePerSec: 10 });
  // "Sustained": 200 and 250 deliveries/s offered for a minute; a backlog would show in p50/p99.
  const sustained10 = await row("sustained 60 s, 10 webhooks, 20 events/s", { webhooks: 10, events: 1200, ratePerSec: 20 });
  const sustained50 = await row("sustained 60 s, 50 webhooks, 5 events/s", { webhooks: 50, events: 300, ratePerSec: 5 });
  const rows: Row[] = [throughput1, throughput10, throughputSleepy, throughput50, paced, pacedSleepy, pacedAgain, sustained10, sustained50];
  const alt = await alternating(bench, 1, Math.max(3, Math.round(15 * SCALE)));
  const pair = await paired(bench, scaled(240));

  printRows(rows);
  const p99Ratio = (a: Row, b: Row) => fixed(a.p99Ms / b.p99Ms, 2);
  const ceilingAfter = await putCeiling(bench.sandbox);
  const ceiling = Math.round(mean([ceilingBefore, ceilingAfter]));
  const best = Math.max(...rows.map((r) => r.deliveriesPerSec));
  const ratios = {
    dynamoPutsPerSecCeiling: ceiling,
    bestDeliveriesPerSecOverPutCeiling: fixed(best / ceiling, 2),
    throughputSleepyP99OverHealthyP99: p99Ratio(throughputSleepy, throughput10),
    pacedSleepyP99OverHealthyP99: fixed(pacedSleepy.p99Ms / mean([paced.p99Ms, pacedAgain.p99Ms]), 2),
    pacedSecondHealthyP99OverFirst: p99Ratio(pacedAgain, paced),
  };
  console.log(`\nDynamoDB Local ceiling: ${ceilingBefore} / ${ceilingAfter} conditional puts/s (before / after); best deliveries/s = ${ratios.bestDeliveriesPerSecOverPutCeiling} x that`);
  console.log(`load average (1 min) at start ${loadavg1mAtStart}, at end ${loadavg1m().toFixed(1)} on ${cores()} CPUs`);
  console.log(
    `nine healthy receivers' p99 with one sleeping / without: throughput ${ratios.throughputSleepyP99OverHealthyP99},` +
      ` paced ${ratios.pacedSleepyP99OverHealthyP99} (vs the mean of the healthy runs before and after; after / before = ${ratios.pacedSecondHealthyP99OverFirst})`,
  );
  console.log(describeAlternating(alt, true));
  console.log(describeCpu(alt));
  console.log(describePaired(pair));
  await writeFull(loadavg1mAtStart, { rows, alternating: alt, paired: pair, ratios });
}

/** One paced receiver among ten: does it slow the other nine? A-B-A, ratios against the mean of the A runs. */
async function rateLimitedRun(bench: Bench, events: number, loadavg1mAtStart: number): Promise<void> {
  const rate = RATE_LIMITED_RATE;
  const limit = Math.floor(rate / 2);
  const shape = { webhooks: 10, events, ratePerSec: rate } as const;
  const without = await scenario(bench, `10 webhooks at ${rate} events/s, first unpaced`, { ...shape, firstRateLimit: null });
  const withPaced = await scenario(bench, `10 webhooks at ${rate} events/s, first rate_limit ${limit}`, { ...shape, firstRateLimit: limit });
  const again = await scenario(bench, `10 webhooks at ${rate} events/s, first unpaced (again)`, { ...shape, firstRateLimit: null });
  const rows = [without, withPaced, again];
  printRows(rows);
  const ratios = {
    p50WithPacedOverWithout: fixed(withPaced.p50Ms / mean([without.p50Ms, again.p50Ms]), 2),
    p99WithPacedOverWithout: fixed(withPaced.p99Ms / mean([without.p99Ms, again.p99Ms]), 2),
    p99SecondWithoutOverFirst: fixed(again.p99Ms / without.p99Ms, 2),
  };
  console.log(`the other nine's p50 / p99 with one paced receiver over without: ${ratios.p50WithPacedOverWithout} / ${ratios.p99WithPacedOverWithout} (drift between the two runs without: ${ratios.p99SecondWithoutOverFirst})`);
  console.log(`load average (1 min) at start ${loadavg1mAtStart}, at end ${loadavg1m().toFixed(1)} on ${cores()} CPUs`);
  await writeAlone("webhooks-rate-limited", loadavg1mAtStart, { rows, ratios });
}

async function main(): Promise<void> {
  // The machine is shared: the load average is part of the result.
  const loadavg1mAtStart = loadavg1m();
  await withSandbox({ port: 0, env: { WEBHOOK_TIMEOUT: String(TIMEOUT_S), LOG_LEVEL: "warn" } }, async (sandbox) => {
    const rx = await startReceivers();
    try {
      const bench = makeBench(sandbox, rx);
      // Warm-up: module imports, connections, DynamoDB Local's JIT.
      await scenario(bench, "warm-up", { webhooks: 5, events: 30 });
      if (RATE_LIMITED_EVENTS > 0) {
        await rateLimitedRun(bench, RATE_LIMITED_EVENTS, loadavg1mAtStart);
      } else if (PAIRED_ONLY_SECONDS > 0) {
        const p = await paired(bench, PAIRED_ONLY_SECONDS);
        console.log(describePaired(p));
        await writeAlone("webhooks-paired", loadavg1mAtStart, { paired: p });
      } else if (ALT_ONLY_ROUNDS > 0) {
        const alt = await alternating(bench, ALT_ONLY_ROUNDS);
        console.log(describeAlternating(alt, false));
        console.log(describeCpu(alt));
        await writeAlone("webhooks-alternating", loadavg1mAtStart, { alternating: alt });
      } else {
        await fullRun(bench, loadavg1mAtStart);
      }
    } finally {
      stopReceivers(rx);
    }
  });
}

await main();
