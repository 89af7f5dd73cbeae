/** Timing helpers shared by the benchmarks (milliseconds from `performance.now()` unless named). */

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Milliseconds one call of `fn` takes. */
export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * Times `n` sequential calls after `warmup` untimed ones; `fn` gets the call's index, counting
 * the warm-up calls (0 .. warmup + n - 1).
 */
export async function sampleMs(n: number, fn: (i: number) => Promise<unknown>, warmup: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + n; i++) {
    const ms = await timeMs(() => fn(i));
    if (i >= warmup) samples.push(ms);
  }
  return samples;
}

/** Nanoseconds per call of a synchronous `fn` over `calls` calls, after 2000 warm-up calls. */
export function perCallNs(fn: () => void, calls: number): number {
  for (let i = 0; i < 2_000; i++) fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - t0) / calls;
}

/** Microseconds per call of a synchronous `fn`, per round of `n` calls (one warm-up round first). */
export function perCallUsRounds(fn: () => unknown, n: number, rounds: number): number[] {
  for (let i = 0; i < n; i++) fn();
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    per.push(((performance.now() - t0) * 1000) / n);
  }
  return per;
}

/** Sleeps until `performance.now()` reaches `due` (at once when it is past): paced loops. */
export async function waitUntil(due: number): Promise<void> {
  const wait = due - performance.now();
  if (wait > 0) await sleep(wait);
}
