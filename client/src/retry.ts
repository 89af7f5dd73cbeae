/**
 * The retry policy: 429, and a 503 or a 409 with Retry-After (nothing was done: a fail-closed
 * rule, a lost race), wait what Retry-After says (capped), whatever the method; otherwise 1 s, 2 s,
 * 4 s, 8 s with jitter, up to 5 attempts. Network errors and other 5xx are retried only when a
 * second attempt cannot do the work twice: GET, PUT (not a password reset), DELETE or a request
 * carrying an Idempotency-Key.
 */

export interface RetryEvent {
  readonly operation: string;
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  /** How long the client waits before the next attempt. */
  readonly delayMs: number;
  /** The status that caused the retry; undefined for a network error. */
  readonly status: number | undefined;
  /** The network error, when there was no reply. */
  readonly error: unknown;
  /** True when the wait is the server's Retry-After. */
  readonly retryAfter: boolean;
}

export interface RetryOptions {
  /** Attempts in all (the first included). Default 5; 1 disables retries. */
  readonly attempts?: number;
  /** First backoff step; doubles on each retry. Default 1000 ms. */
  readonly baseDelayMs?: number;
  /** Jitter added to a backoff step, as a fraction of it (0..1). Default 0.2. */
  readonly jitter?: number;
  /** Longest Retry-After honoured; a longer one is waited for this long. Default 60 000 ms. */
  readonly maxRetryAfterMs?: number;
  /** Total time budget of one call, retries and waits included. Default none. */
  readonly deadlineMs?: number;
  /** Called before each wait (logging). */
  readonly onRetry?: (event: RetryEvent) => void;
  /** The wait; injectable for tests. Default: a timer that an AbortSignal cuts short. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random number in [0, 1) for the jitter; injectable for tests. */
  readonly random?: () => number;
  /** The clock the deadline is measured with. */
  readonly now?: () => number;
}

export type ResolvedRetry = Required<Omit<RetryOptions, "onRetry" | "deadlineMs">> & Pick<RetryOptions, "onRetry" | "deadlineMs">;

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function resolveRetry(options: RetryOptions = {}): ResolvedRetry {
  return {
    attempts: Math.max(1, Math.floor(options.attempts ?? 5)),
    baseDelayMs: options.baseDelayMs ?? 1000,
    jitter: Math.min(1, Math.max(0, options.jitter ?? 0.2)),
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    sleep: options.sleep ?? abortableSleep,
    random: options.random ?? Math.random,
    now: options.now ?? Date.now,
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
  };
}

/** The backoff step after the n-th failed attempt (1-based): base * 2^(n-1), plus jitter. */
export function backoffMs(policy: ResolvedRetry, attempt: number): number {
  const step = policy.baseDelayMs * 2 ** (attempt - 1);
  return Math.round(step + step * policy.jitter * policy.random());
}

/** What the server asked to wait (Retry-After: delta-seconds or an HTTP date), in milliseconds; undefined when absent or unreadable. */
export function serverRetryAfterMs(header: string | null, now: () => number): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date starts with the day's name ("Sun, 06 Nov 1994 08:49:37 GMT"); Date.parse alone takes "-3" or "1.5" too.
  const at = /^[A-Za-z]{3}/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now());
}

/** How long the client waits for a Retry-After: the server's value, capped at maxRetryAfterMs. */
export function retryAfterMs(header: string | null, policy: ResolvedRetry): number | undefined {
  const ms = serverRetryAfterMs(header, policy.now);
  return ms === undefined ? undefined : Math.min(ms, policy.maxRetryAfterMs);
}

/** PUTs that a second attempt can do twice: a password reset spends its single-use token. */
const NOT_REPEATABLE: ReadonlySet<string> = new Set(["auth.password_reset"]);

/** Whether repeating the request cannot do its work twice. */
export const isIdempotent = (method: string, headers: Headers, operation = ""): boolean =>
  !NOT_REPEATABLE.has(operation) && (method === "GET" || method === "PUT" || method === "DELETE" || headers.has("idempotency-key"));
