/**
 * Operating benchmark (`npm run bench:operate`), ratios within one run:
 * 1. what the EMF metrics cost the delivery worker per attempt: `recordDeliveryMetrics` (one
 *    line, two metrics) against the same line without the `_aws` block and against nothing,
 *    console.log going to /dev/null (in Lambda it goes to the log agent the same way);
 * 2. what they add to the delivery bundle (esbuild metafile: bytes of the metrics modules);
 * 3. what cdk-nag adds to a synth: synth alone vs synth + AwsSolutions validation, over stub
 *    bundles; plus the template's size (resources, alarms, metrics per alarm).
 * Prints a table and writes docs/bench/operate.json.
 */
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { Console } from "node:console";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildFunctions, functionNames } from "../../infra/build.ts";
import { nagViolations } from "../../infra/nag.ts";
import { buildApp } from "../../infra/stack.ts";
import { recordDeliveryMetrics } from "../../shared/delivery/metrics.ts";
import type { AttemptOutcome } from "../../shared/domain/deliveries.ts";
import { cores, writeResult } from "./lib/output.ts";
import { median } from "./lib/stats.ts";
import { formatTable } from "./lib/table.ts";
import { perCallNs } from "./lib/timing.ts";

const CALLS = 200_000;
const SYNTHS = 3;

async function emfCost() {
  const sink = new Console(createWriteStream("/dev/null"));
  const original = console.log;
  console.log = sink.log.bind(sink);
  const outcome: AttemptOutcome = { kind: "done", reason: "delivered", attempt: { status: "succeeded", durationMs: 123 } };
  const plain = () => sink.log(JSON.stringify({ DeliverySucceeded: 1, DeliveryLatency: 123 }));
  try {
    const rows = [] as { case: string; nsPerCall: number }[];
    for (let round = 0; round < 3; round++) {
      rows.push({ case: "nothing", nsPerCall: perCallNs(() => undefined, CALLS) });
      rows.push({ case: "plain JSON line", nsPerCall: perCallNs(plain, CALLS) });
      rows.push({ case: "EMF line (recordDeliveryMetrics)", nsPerCall: perCallNs(() => recordDeliveryMetrics(outcome), CALLS) });
    }
    const by = (c: string) => median(rows.filter((r) => r.case === c).map((r) => r.nsPerCall));
    return ["nothing", "plain JSON line", "EMF line (recordDeliveryMetrics)"].map((c) => ({ case: c, nsPerCall: Math.round(by(c)) }));
  } finally {
    console.log = original;
  }
}

async function bundleBytes(dir: string) {
  await buildFunctions({ outDir: dir });
  const meta = JSON.parse(await readFile(join(dir, "meta.json"), "utf8")) as {
    outputs: Record<string, { bytes: number; inputs: Record<string, { bytesInOutput: number }> }>;
  };
  const key = Object.keys(meta.outputs).find((k) => k.endsWith("webhooks-deliver/index.mjs"))!;
  const out = meta.outputs[key]!;
  const metrics = Object.entries(out.inputs)
    .filter(([file]) => file.endsWith("shared/delivery/metrics.ts") || file.endsWith("shared/observability/metrics.ts"))
    .reduce((n, [, v]) => n + v.bytesInOutput, 0);
  return { bundleBytes: out.bytes, metricsBytes: metrics };
}

async function synthCost(stubDir: string) {
  for (const fn of functionNames()) {
    await mkdir(join(stubDir, fn), { recursive: true });
    await writeFile(join(stubDir, fn, "index.mjs"), "export const handler = async () => ({ statusCode: 200 });\n");
  }
  const synthOnly: number[] = [];
  const withNag: number[] = [];
  let template: Template | undefined;
  let violations = -1;
  for (let i = 0; i < SYNTHS; i++) {
    const t0 = performance.now();
    const { stack } = buildApp({ app: new App({ context: { stage: "production" } }), assetsDir: stubDir });
    template = Template.fromStack(stack);
    const t1 = performance.now();
    violations = nagViolations(stack).length;
    const t2 = performance.now();
    synthOnly.push(t1 - t0);
    withNag.push(t2 - t0);
  }
  const json = template!.toJSON() as { Resources: Record<string, { Type: string; Properties: { Metrics?: { MetricStat?: unknown }[] } }> };
  const alarms = Object.values(json.Resources).filter((r) => r.Type === "AWS::CloudWatch::Alarm");
  const metricsPerAlarm = alarms.map((a) => (a.Properties.Metrics ?? []).filter((m) => m.MetricStat).length || 1);
  return {
    synthMs: Math.round(median(synthOnly)),
    synthPlusNagMs: Math.round(median(withNag)),
    nagViolations: violations,
    resources: Object.keys(json.Resources).length,
    alarms: alarms.length,
    metricsPerAlarmMax: Math.max(...metricsPerAlarm),
    alarmMetricsTotal: metricsPerAlarm.reduce((a, b) => a + b, 0),
  };
}

const work = await mkdtemp(join(tmpdir(), "conversa-bench-operate-"));
try {
  const emf = await emfCost();
  const bundle = await bundleBytes(join(work, "bundles"));
  const synth = await synthCost(join(work, "stubs"));
  const base = emf.find((r) => r.case === "plain JSON line")!.nsPerCall;
  console.log("\nEMF per delivery attempt (console.log to /dev/null, median of 3 x 200k calls)");
  console.log(
    formatTable(
      [
        { header: "case", minWidth: 34 },
        { header: "ns/call", align: "right", minWidth: 8 },
        { header: "vs plain", align: "right", minWidth: 9 },
      ],
      emf.map((r) => [r.case, r.nsPerCall, (r.nsPerCall / base).toFixed(2)]),
      { gap: " " },
    ),
  );
  console.log("\nwebhooks-deliver bundle");
  console.log(`bundle ${(bundle.bundleBytes / 1000).toFixed(1)} KB, metrics modules ${bundle.metricsBytes} B (${((100 * bundle.metricsBytes) / bundle.bundleBytes).toFixed(2)} %)`);
  console.log("\nsynth (production, stub bundles, median of 3)");
  console.log(`synth ${synth.synthMs} ms, synth + cdk-nag ${synth.synthPlusNagMs} ms (x${(synth.synthPlusNagMs / synth.synthMs).toFixed(2)}), unacknowledged findings ${synth.nagViolations}`);
  console.log(`${synth.resources} resources, ${synth.alarms} alarms, ${synth.alarmMetricsTotal} metrics in alarms (max ${synth.metricsPerAlarmMax} per alarm)`);
  console.log("");
  await writeResult("operate", { date: new Date().toISOString(), node: process.version, cpus: cores(), emf, bundle, synth });
} finally {
  await rm(work, { recursive: true, force: true });
}
