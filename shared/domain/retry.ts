/**
 * Updates read, compute and write conditionally on the revision they read. When a concurrent
 * update wins the race, the loser reads again and re-applies its change on the fresh state (last
 * writer wins per field): the derived data (counters, indexes, postings, outbox events) is always
 * computed from the state the write replaces. Jittered exponential backoff, bounded by the time the
 * request has left: inside a request (`withDeadline`), a contended update keeps trying until
 * shortly before its function would time out, so twenty writers queued on one item all succeed
 * even on a slow store; outside one, by a count of attempts. Past the bound, the Stale error
 * (409, Retry-After: 1) reaches the client.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Stale } from "../errors.ts";

export interface RetryOptions {
  /** Attempts in all, the first included, when no deadline is set. */
  readonly attempts?: number;
  /** Least upper bound of the first backoff, in ms (an attempt's own duration when longer); doubled per attempt up to `capMs`. */
  readonly baseMs?: number;
  readonly capMs?: number;
  /** Epoch ms after which no new attempt starts; default: the current request's (`withDeadline`). */
  readonly deadline?: number;
}

export const STALE_ATTEMPTS = 10;

const requestDeadline = new AsyncLocalStorage<number>();

/** Runs `fn` with `deadline` (epoch ms) as the bound of every retry it makes. */
export const withDeadline = <T>(deadline: number, fn: () => Promise<T>): Promise<T> => requestDeadline.run(deadline, fn);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `update` (read + conditional write) again while it fails with Stale. */
export async function retryOnStale<T>(update: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const deadline = opts.deadline ?? requestDeadline.getStore();
  const attempts = opts.attempts ?? STALE_ATTEMPTS;
  const baseMs = opts.baseMs ?? 20;
  const capMs = opts.capMs ?? 2000;
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    try {
      return await update();
    } catch (err) {
      if (!(err instanceof Stale)) throw err;
      // Full jitter, scaled by how long an attempt takes (a slow store means longer collisions):
      // contenders spread out instead of colliding again in lock step.
      const took = Date.now() - started;
      const unit = Math.max(baseMs, took);
      const wait = Math.random() * Math.min(capMs, unit * 2 ** Math.min(attempt - 1, 16));
      // Another attempt only when it can end before the deadline (it takes about as long as this one).
      const last = deadline === undefined ? attempt >= attempts : Date.now() + wait + took > deadline;
      if (last) throw err;
      await sleep(wait);
    }
  }
}
