/**
 * The retry schedule: delays in seconds after each failed attempt.
 * Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts in all. WEBHOOK_RETRY_SCHEDULE
 * (comma-separated seconds) overrides it.
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** SQS holds a received message invisible for at most 12 hours. */
export const MAX_DELAY_SECONDS = 12 * 3600;

export function parseSchedule(raw: string | undefined): readonly number[] {
  if (raw === undefined || raw.trim() === "") return DEFAULT_RETRY_SCHEDULE;
  const parts = raw.split(",").map((s) => s.trim());
  const out = parts.map(Number);
  if (out.some((n, i) => parts[i] === "" || !Number.isInteger(n) || n < 0 || n > MAX_DELAY_SECONDS)) {
    throw new Error(`WEBHOOK_RETRY_SCHEDULE must be comma-separated integers of seconds in 0..${MAX_DELAY_SECONDS}, got "${raw}"`);
  }
  return out;
}

/** Attempts in all: the first plus one per schedule step. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

export type RetryDecision = { readonly retry: true; readonly delaySeconds: number } | { readonly retry: false };

/**
 * After failed attempt number `attempt` (1-based): retry after the schedule's step, or give up.
 * A receiver's Retry-After (429/503) is honoured up to the next step: the retry waits at least
 * what it asks, but no longer than the following step's delay (the last step's own at the end),
 * and never less than the schedule's step, so that a receiver answering "Retry-After: 1" while it
 * is overloaded does not use up its attempts in seconds.
 */
export function nextRetry(schedule: readonly number[], attempt: number, retryAfterSeconds?: number): RetryDecision {
  const step = schedule[attempt - 1];
  if (step === undefined) return { retry: false };
  if (retryAfterSeconds === undefined) return { retry: true, delaySeconds: step };
  const ceiling = Math.max(step, schedule[attempt] ?? step);
  return { retry: true, delaySeconds: Math.max(step, Math.min(retryAfterSeconds, ceiling)) };
}

/** An HTTP date names its month (IMF-fixdate, RFC 850 and asctime forms alike). */
const HTTP_DATE = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\b/i;

/**
 * `Retry-After` as seconds: delta-seconds or an HTTP date (a date already past is 0); undefined
 * when absent or unreadable, such as a negative number (which Date.parse would read as a year).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  if (!HTTP_DATE.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * maxReceiveCount of the deliveries queue's redrive policy: one receive per attempt, plus slack
 * for early or duplicate receives and for pacing waits (a webhook's rate_limit); a delivery that failed for good is released at once each time
 * until SQS moves it to the DLQ.
 */
export function deliveryMaxReceiveCount(schedule: readonly number[]): number {
  return maxAttempts(schedule) + 3 + PACING_RECEIVES;
}

/** Receives a paced delivery may spend waiting for its webhook's rate (each wait is one receive). */
export const PACING_RECEIVES = 20;
