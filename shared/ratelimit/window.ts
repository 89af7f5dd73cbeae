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

export function seconds(ms: number): number {
  return ms / 1000;
}

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

export function sliceSeconds(s: SlidingSpec): number {
  return s.windowSeconds / s.slices;
}

export function sliceIndex(nowMs: number, spec: SlidingSpec): number {
  return Math.floor(seconds(nowMs) / sliceSeconds(spec));
}

/** Oldest slice still counted when the current slice is `current`. */
export function oldestCounted(current: number, spec: SlidingSpec): number {
  return current - spec.slices;
}

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
  // From `current + slices + 1` on, no slice counted now is counted any more: only a later slice
  // (written by a container whose clock runs ahead) could still be full, and it is not waited for.
  const last = current + spec.slices + 1;
  let next = current + 1;
  while (next < last && slidingCount(counts, next, spec) + 1 > limit) next++;
  return next * sliceSeconds(spec);
}

/** When the oldest counted slice that holds requests stops being counted (quota restored). */
export function slidingResetAt(counts: ReadonlyMap<number, number>, current: number, spec: SlidingSpec): number {
  const from = oldestCounted(current, spec);
  let oldest = current;
  for (const [slice, n] of counts) if (n > 0 && slice >= from) oldest = Math.min(oldest, slice);
  return (oldest + spec.slices + 1) * sliceSeconds(spec);
}

/** When a counter item of slice `current` stops mattering (its TTL). */
export function slidingExpiresAt(current: number, spec: SlidingSpec): number {
  return (current + spec.slices + 1) * sliceSeconds(spec);
}
