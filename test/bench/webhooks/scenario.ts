/**
 * One row of the webhook delivery table: `webhooks` webhooks on inbox_created (the first one
 * sleeping past the timeout if `sleepy`), `events` events created through the API either with a
 * fixed number in flight (throughput) or at a steady rate (paced, sustained). Each healthy
 * receiver's first arrival of a delivery is timed against the start of its event's API call.
 */
import { fixed, quantile } from "../lib/stats.ts";
import { waitUntil } from "../lib/timing.ts";
import type { Bench } from "./context.ts";
import { awaitArrivals, firstArrivals } from "./receivers.ts";

export interface Row {
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

export interface ScenarioOptions {
  readonly webhooks: number;
  readonly sleepy?: boolean;
  readonly events: number;
  /** API calls in flight when not paced (8 by default). */
  readonly inFlight?: number;
  /** Events per second, paced; omitted = as fast as `inFlight` calls go. */
  readonly ratePerSec?: number;
  /**
   * The first webhook is a separate receiver, not measured: with this `rate_limit` (deliveries
   * per second), or null for the same receiver unpaced (the baseline of the paced comparison).
   */
  readonly firstRateLimit?: number | null;
}

export async function scenario(bench: Bench, name: string, opts: ScenarioOptions): Promise<Row> {
  const run = bench.nextRun();
  const hookIds: number[] = [];
  for (let i = 0; i < opts.webhooks; i++) {
    const separate = opts.firstRateLimit !== undefined && i === 0;
    const path = opts.sleepy && i === 0 ? `/sleepy/${run}/${i}` : separate ? `/limited/${run}/${i}` : `/r/${run}/${i}`;
    hookIds.push(await bench.createHook(bench.admin, path, separate && opts.firstRateLimit !== null ? opts.firstRateLimit : undefined));
  }
  const healthy = opts.webhooks - (opts.sleepy || opts.firstRateLimit !== undefined ? 1 : 0);
  const started = new Map<number, number>();
  const t0 = performance.now();
  const fire = async () => {
    const t = performance.now();
    started.set(await bench.createInbox(bench.admin, run), t);
  };
  if (opts.ratePerSec) {
    const pending: Promise<void>[] = [];
    for (let i = 0; i < opts.events; i++) {
      await waitUntil(t0 + (i * 1000) / opts.ratePerSec);
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
  const prefix = `/r/${run}/`;
  const all = await awaitArrivals(bench.rx, (a) => a.path.startsWith(prefix), expected);
  const got = [...firstArrivals(all).values()];
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
    seconds: fixed(seconds, 2),
    eventsPerSec: fixed(opts.events / seconds, 1),
    deliveriesPerSec: fixed(got.length / seconds, 1),
    p50Ms: Math.round(quantile(latencies, 0.5)),
    p99Ms: Math.round(quantile(latencies, 0.99)),
  };
  for (const id of hookIds) await bench.deleteHook(bench.admin, id);
  console.error(`  ${name}: done`);
  return row;
}
