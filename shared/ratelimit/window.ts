/**
 * Window math of the limiter (pure, clock given in milliseconds).
 *
 * Fixed windows are aligned to multiples of their length since the epoch, so every container
 * agrees on the window and `Retry-After` is the exact time to its end.
 *
 * Sliding windows are cut into `slices` equal slices; a request is counted in the slice it falls
 * in and judged on the sum of the current slice and the `slices` before it. That span covers at
 * least the last full window, so no client ever gets more than `limit` requests through in ANY
 * window-long interval (no boundary burst); the price is that a slice is forgotten up to one
 * slice later than a perfect sliding log would forget it.
 */

export const seconds = (ms: number): number => ms / 1000;

export interface FixedWindow {
  /** Start and end in epoch seconds; the window is [start, end). */
  readonly start: number;
  readonly end: number;
}

export function fixedWindow(nowMs: number, windowSeconds: number): FixedWindow {
  const start = Math.floor(seconds(nowMs) / windowSeconds) * windowSeconds;
  return { start, end: start + windowSeconds };
}

/** Whole seconds from now until `epochSeconds` (at least 1: a client never retries "now"). */
export function secondsUntil(nowMs: number, epochSeconds: number): number {
  return Math.max(1, Math.ceil(epochSeconds - seconds(nowMs)));
}

export interface SlidingSpec {
  readonly windowSeconds: number;
  readonly slices: number;
}

export const sliceSeconds = (s: SlidingSpec): number => s.windowSeconds / s.slices;

export function sliceIndex(nowMs: number, spec: SlidingSpec): number {
  return Math.floor(seconds(nowMs) / sliceSeconds(spec));
}

/** Oldest slice still counted when the current slice is `current`. */
export const oldestCounted = (current: number, spec: SlidingSpec): number => current - spec.slices;

/** Requests counted at slice `current`: the sum over [current - slices, ∞) (later slices: clock skew). */
export function slidingCount(counts: ReadonlyMap<number, number>, current: number, spec: SlidingSpec): number {
  let sum = 0;
  const from = oldestCounted(current, spec);
  for (const [slice, n] of counts) if (slice >= from) sum += n;
  return sum;
}

/**
 * The first slice boundary after `current` at which one more request would pass, given the
 * counts so far (nothing else arriving): the request passes when the counted sum + 1 <= limit.
 */
export function slidingReopensAt(counts: ReadonlyMap<number, number>, current: number, spec: SlidingSpec, limit: number): number {
  for (let next = current + 1; next <= current + spec.slices + 1; next++) {
    if (slidingCount(counts, next, spec) + 1 <= limit) return next * sliceSeconds(spec);
  }
  return (current + spec.slices + 1) * sliceSeconds(spec);
}

/** When the oldest counted slice that holds requests stops being counted (quota restored). */
export function slidingResetAt(counts: ReadonlyMap<number, number>, current: number, spec: SlidingSpec): number {
  const from = oldestCounted(current, spec);
  let oldest = current;
  for (const [slice, n] of counts) if (n > 0 && slice >= from && slice < oldest) oldest = slice;
  return (oldest + spec.slices + 1) * sliceSeconds(spec);
}

/** When a counter item of slice `current` stops mattering (its TTL). */
export const slidingExpiresAt = (current: number, spec: SlidingSpec): number => (current + spec.slices + 1) * sliceSeconds(spec);
