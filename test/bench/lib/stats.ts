/**
 * Statistics shared by the benchmarks. Two quantile conventions are in use and both are kept, so
 * that figures stay comparable with the results already written: nearest rank (`quantile`) and
 * the sorted sample at index floor(q x n) (`quantileFloor`, slightly higher for small samples).
 */

const sorted = (xs: readonly number[]): Float64Array => Float64Array.from(xs).sort();

/** Nearest-rank quantile (q in 0..1): the sample at index ceil(q x n) - 1; NaN when empty. */
export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return NaN;
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** Quantile (q in 0..1) as the sample at index floor(q x n); NaN when empty. */
export function quantileFloor(xs: readonly number[], q: number): number {
  if (!xs.length) return NaN;
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

/** Median: the middle sample, or the mean of the two middle ones; NaN when empty. */
export function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = sorted(xs);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/** p50 and p99 (floor-index convention) of a set of timings. */
export function p50p99(xs: readonly number[]): { p50: number; p99: number } {
  return { p50: quantileFloor(xs, 0.5), p99: quantileFloor(xs, 0.99) };
}

/** `n` rounded half up to `digits` decimals. */
export function round(n: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** `n` to `digits` decimals as `toFixed` rounds it (the decimal expansion, not the float product). */
export function fixed(n: number, digits: number): number {
  return Number(n.toFixed(digits));
}

/** a / b rounded to `digits` decimals (2 by default). */
export function ratio(a: number, b: number, digits = 2): number {
  return round(a / b, digits);
}

/**
 * 5th and 95th percentiles, to 2 decimals, of `stat` over 2000 bootstrap draws. `stat` resamples
 * with the generator it is given, seeded: the interval is reproducible from the data. It yields
 * to the event loop as it goes, so that work in the same process (a sandbox still delivering
 * retries) is not held up.
 */
export async function bootstrap90(stat: (resample: (units: readonly number[]) => number[]) => number, seed: number): Promise<[number, number]> {
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const resample = (units: readonly number[]) => units.map(() => units[Math.floor(rand() * units.length)]!);
  const out: number[] = [];
  for (let k = 0; k < 2000; k++) {
    out.push(stat(resample));
    if (k % 20 === 19) await new Promise((r) => setImmediate(r));
  }
  return [fixed(quantile(out, 0.05), 2), fixed(quantile(out, 0.95), 2)];
}

/** Least-squares line through points (x, y): its slope, intercept and Pearson's r. */
export function linearFit(points: readonly (readonly [number, number])[]): { slope: number; intercept: number; r: number } {
  const n = points.length;
  const mx = mean(points.map(([x]) => x));
  const my = mean(points.map(([, y]) => y));
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  }
  if (n < 2 || sxx === 0) return { slope: 0, intercept: my, r: 0 };
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx, r: syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy) };
}
