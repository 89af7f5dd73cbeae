/**
 * Cold-start benchmark (`npm run bench:coldstart`): bundles every function into a temp dir,
 * then for each one measures the minified size and the time to import it in a fresh Node
 * process, as Lambda does at a cold start (after the runtime client loaded, before the first
 * event). Prints a table and writes docs/bench/coldstart.json. Flags, never fails, on the limits.
 */
import { execFile } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { buildFunctions, ROOT } from "../../infra/build.ts";
import type { BuiltFunction } from "../../infra/build.ts";

const RUNS = 5;
const LIMITS = { bytes: 500_000, importMs: 50 } as const;
/** As deployed: the stack sets NODE_OPTIONS=--enable-source-maps (the .map is read at import). */
const NODE_FLAGS = ["--enable-source-maps"] as const;
const OUT_FILE = join(ROOT, "docs", "bench", "coldstart.json");

const run = promisify(execFile);

/**
 * Runs in the child. `node:net` is loaded first (the Lambda runtime client has it loaded too)
 * and its connect is counted, so an import that dials out is caught; after the import, one more
 * turn of the event loop lets deferred work show up.
 */
const CHILD = `
import net from "node:net";
let connects = 0;
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) { connects++; return connect.apply(this, args); };
const t0 = performance.now();
const mod = await import(process.env.BENCH_MODULE_URL);
const ms = performance.now() - t0;
await new Promise((r) => setTimeout(r, 20));
process.stdout.write(JSON.stringify({ ms, connects, hasHandler: typeof mod.handler === "function" }));
`;

/** What a function's container has: a region, table names, role credentials; no endpoints. */
const CHILD_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "AKIDBENCHMARK",
  AWS_SECRET_ACCESS_KEY: "bench-secret",
  AWS_SESSION_TOKEN: "bench-token",
  APP_ENV: "production",
  TABLE_NAME: "conversa-main",
  THROTTLE_TABLE_NAME: "conversa-throttle",
};

interface Sample {
  readonly ms: number;
  readonly connects: number;
  readonly hasHandler: boolean;
}

interface Measured {
  readonly fn: string;
  readonly bytes: number;
  readonly importMsMedian: number;
  readonly importMsMax: number;
  readonly runs: number[];
}

async function importOnce(file: string): Promise<Sample> {
  const { stdout } = await run(process.execPath, [...NODE_FLAGS, "--input-type=module", "-e", CHILD], {
    cwd: tmpdir(),
    env: { ...CHILD_ENV, BENCH_MODULE_URL: pathToFileURL(file).href },
  });
  return JSON.parse(stdout) as Sample;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function measure(b: BuiltFunction): Promise<Measured> {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const sample = await importOnce(b.outfile);
    if (!sample.hasHandler) throw new Error(`${b.fn}: the bundle exports no handler function`);
    if (sample.connects > 0) throw new Error(`${b.fn}: importing opened ${sample.connects} network connection(s)`);
    runs.push(round(sample.ms));
  }
  return { fn: b.fn, bytes: b.bytes, importMsMedian: round(median(runs)), importMsMax: Math.max(...runs), runs };
}

function table(rows: readonly Measured[]): string {
  const w = Math.max("function".length, ...rows.map((r) => r.fn.length));
  const head = `${"function".padEnd(w)}  ${"KB".padStart(7)}  ${"median ms".padStart(9)}  ${"max ms".padStart(7)}`;
  const lines = rows.map((r) => {
    const flags = [
      ...(r.bytes > LIMITS.bytes ? [`> ${LIMITS.bytes / 1000} KB`] : []),
      ...(r.importMsMedian > LIMITS.importMs ? [`> ${LIMITS.importMs} ms`] : []),
    ];
    return [
      r.fn.padEnd(w),
      (r.bytes / 1000).toFixed(1).padStart(7),
      r.importMsMedian.toFixed(1).padStart(9),
      r.importMsMax.toFixed(1).padStart(7),
      ...(flags.length ? [`  OVER: ${flags.join(", ")}`] : []),
    ].join("  ");
  });
  return [head, "-".repeat(head.length), ...lines].join("\n");
}

const outDir = await mkdtemp(join(tmpdir(), "conversa-bench-"));
try {
  const built = await buildFunctions({ outDir });
  const measured: Measured[] = [];
  for (const b of built) measured.push(await measure(b));

  const cores = availableParallelism();
  const cpu = cpus()[0]?.model ?? "unknown";
  console.log(`cold-start import, ${RUNS} fresh processes per function; node ${process.version} ${NODE_FLAGS.join(" ")}; ${cores} cores (${cpu})\n`);
  console.log(table(measured));
  const over = measured.filter((m) => m.bytes > LIMITS.bytes || m.importMsMedian > LIMITS.importMs);
  console.log(over.length ? `\n${over.length} function(s) over a limit` : `\nall within ${LIMITS.bytes / 1000} KB and ${LIMITS.importMs} ms`);

  const report = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    nodeFlags: NODE_FLAGS,
    machine: { cores, cpu, platform: process.platform, arch: process.arch },
    functions: measured,
    limits: LIMITS,
  };
  await mkdir(join(ROOT, "docs", "bench"), { recursive: true });
  await writeFile(OUT_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${OUT_FILE.slice(ROOT.length)}`);
} finally {
  await rm(outDir, { recursive: true, force: true });
}
