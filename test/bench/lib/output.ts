/**
 * The benchmarks' result files: docs/bench/<name>.json, pretty-printed with a final newline.
 * `BENCH_OUT_DIR` writes them elsewhere (a smoke run that must not replace the recorded results).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { availableParallelism, cpus, loadavg } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { ROOT } from "../../../infra/build.ts";

export function resultFile(name: string): string {
  const dir = process.env["BENCH_OUT_DIR"] ? resolve(process.env["BENCH_OUT_DIR"]) : join(ROOT, "docs", "bench");
  return join(dir, `${name}.json`);
}

/** Writes `result` to the result file `name` and says where. */
export async function writeResult(name: string, result: unknown): Promise<string> {
  const file = resultFile(name);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  const rel = relative(ROOT, file);
  console.log(`wrote ${rel.startsWith("..") || isAbsolute(rel) ? file : rel}`);
  return file;
}

/** Cores this process may use. */
export const cores = (): number => availableParallelism();

/** The CPU model, as the OS names it. */
export const cpuModel = (): string => cpus()[0]?.model ?? "unknown";

/** The load average over the last minute, to one decimal (the machine is shared: part of a result). */
export const loadavg1m = (): number => Number((loadavg()[0] ?? 0).toFixed(1));
