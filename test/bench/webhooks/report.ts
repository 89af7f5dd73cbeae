/** What the webhook delivery benchmark prints and writes. */
import { cores, cpuModel, loadavg1m, writeResult } from "../lib/output.ts";
import { formatTable } from "../lib/table.ts";
import type { Alternating } from "./alternating.ts";
import type { Paired } from "./paired.ts";
import { SLEEP_MS, TIMEOUT_S } from "./receivers.ts";
import type { Row } from "./scenario.ts";

export function printRows(rows: readonly Row[]): void {
  const cols: (keyof Row)[] = ["scenario", "webhooks", "events", "deliveries", "missing", "redelivered", "seconds", "eventsPerSec", "deliveriesPerSec", "p50Ms", "p99Ms"];
  console.log(formatTable(cols, rows.map((r) => cols.map((c) => r[c]))));
}

/** The alternating run in one line; `perBlock` adds every block's p99. */
export function describeAlternating(alt: Alternating, perBlock: boolean): string {
  if (!perBlock) {
    return (
      `alternating ${alt.blocks.length} blocks of ${alt.blockSeconds} s: A p99 ${alt.healthy.p99Ms} ms, B p99 ${alt.sleeping.p99Ms} ms;` +
      ` pooled ratio ${alt.pooledP99Ratio} (90 % interval ${alt.pooledP99Ratio90.join("-")}); median block p99 ratio ${alt.medianBlockP99Ratio};` +
      ` placebo ${alt.placeboPooledP99Ratio}; missing ${alt.missing}`
    );
  }
  return (
    `alternating ${alt.blocks.length} blocks of ${alt.blockSeconds} s: per block ` +
    alt.blocks.map((b) => `${b.arm} ${b.p99Ms}`).join(", ") +
    ` ms p99; pooled p99 ${alt.sleeping.p99Ms} / ${alt.healthy.p99Ms} ms = ${alt.pooledP99Ratio},` +
    ` 90 % interval ${alt.pooledP99Ratio90.join("-")};` +
    ` median block p99 ${alt.sleeping.medianBlockP99Ms} / ${alt.healthy.medianBlockP99Ms} ms = ${alt.medianBlockP99Ratio};` +
    ` placebo (alternate A blocks) ${alt.placeboPooledP99Ratio}; missing ${alt.missing}`
  );
}

export function describeCpu(alt: Alternating): string {
  const [a, b] = [alt.healthy.cpuMsPerEvent, alt.sleeping.cpuMsPerEvent];
  const r = (x: number | null, y: number | null) => (x !== null && y !== null ? `x${(x / y).toFixed(2)}` : "n/a");
  return `CPU per event, healthy / sleeping blocks: this process ${a.node} / ${b.node} ms (${r(b.node, a.node)}), DynamoDB Local ${a.dynamo ?? "n/a"} / ${b.dynamo ?? "n/a"} ms (${r(b.dynamo, a.dynamo)})`;
}

export function describePaired(p: Paired): string {
  return (
    `paired ${p.seconds} s (X: ten healthy receivers, Y: nine and one sleeping; events interleaved): nine receivers' p99 Y ${p.sleeping.p99Ms} / X ${p.healthy.p99Ms} ms` +
    ` = ${p.pooledP99Ratio} (90 % interval ${p.pooledP99Ratio90.join("-")}); p50 ${p.sleeping.p50Ms} / ${p.healthy.p50Ms} ms = ${p.p50Ratio};` +
    ` placebo (X odd / even events) ${p.placeboPooledP99Ratio} (${p.placeboPooledP99Ratio90.join("-")}); missing ${p.missing}`
  );
}

/** The result file of a full run: every row, both comparisons, the ratios. */
export async function writeFull(loadavg1mAtStart: number, figures: { rows: readonly Row[]; alternating: Alternating; paired: Paired; ratios: Record<string, number> }): Promise<void> {
  await writeResult("webhooks", {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cores(), model: cpuModel(), node: process.version, loadavg1mAtEnd: loadavg1m(), loadavg1mAtStart },
    settings: { WEBHOOK_TIMEOUT: TIMEOUT_S, sleepingReceiverMs: SLEEP_MS, apiCallsInFlight: 8 },
    ...figures,
  });
}

/** The result file of a comparison run alone (`name`): when, where, with what settings, and its figures. */
export async function writeAlone(name: string, loadavg1mAtStart: number, figures: Record<string, unknown>): Promise<void> {
  await writeResult(name, {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cores(), model: cpuModel(), node: process.version, loadavg1mAtStart, loadavg1mAtEnd: loadavg1m() },
    settings: { WEBHOOK_TIMEOUT: TIMEOUT_S, sleepingReceiverMs: SLEEP_MS },
    ...figures,
  });
}
