/**
 * Updates read, compute and write conditionally on the revision they read. When a concurrent
 * update wins the race, the loser reads again and re-applies its change on the fresh state (last
 * writer wins per field): the derived data (counters, indexes, postings, outbox events) is always
 * computed from the state the write replaces. Bounded, with jittered exponential backoff; past the
 * last attempt the Stale error (409, Retry-After: 1) reaches the client.
 */
import { Stale } from "../errors.ts";

export interface RetryOptions {
  /** Attempts in all, the first included. */
  readonly attempts?: number;
  /** Least upper bound of the first backoff, in ms (an attempt's own duration when longer); doubled per attempt up to `capMs`. */
  readonly baseMs?: number;
  readonly capMs?: number;
}

export const STALE_ATTEMPTS = 10;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `update` (read + conditional write) again while it fails with Stale. */
export async function retryOnStale<T>(update: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? STALE_ATTEMPTS;
  const baseMs = opts.baseMs ?? 20;
  const capMs = opts.capMs ?? 2000;
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    try {
      return await update();
    } catch (err) {
      if (!(err instanceof Stale) || attempt >= attempts) throw err;
      // Full jitter, scaled by how long an attempt takes (a slow store means longer collisions):
      // contenders spread out instead of colliding again in lock step.
      const unit = Math.max(baseMs, Date.now() - started);
      await sleep(Math.random() * Math.min(capMs, unit * 2 ** (attempt - 1)));
    }
  }
}
