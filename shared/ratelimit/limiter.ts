/**
 * The limiter: every rule of a request is counted in parallel, one atomic store call each.
 * Every request counts, allowed or denied: the store's atomic increment gives each request its
 * ordinal in the window, and exactly the first `limit` ordinals pass, whatever the concurrency.
 * No AWS here: the counter store is a port (shared/db/throttle-store.ts implements it).
 */
import { RateLimited, ServiceUnavailable } from "../errors.ts";
import type { Rule } from "./rules.ts";
import { slidingSpec } from "./rules.ts";
import {
  fixedWindow,
  oldestCounted,
  secondsUntil,
  sliceIndex,
  slidingCount,
  slidingExpiresAt,
  slidingReopensAt,
  slidingResetAt,
} from "./window.ts";

export interface CounterId {
  readonly rule: string;
  readonly subject: string;
}

export interface CounterStore {
  /** Adds 1 to the counter of the fixed window starting at `windowStart`; returns the new count. */
  hitFixed(id: CounterId, windowStart: number, expiresAt: number): Promise<number>;
  /** Adds 1 to slice `slice` of a sliding counter and forgets slice `drop`; returns every slice's count. */
  hitSliding(id: CounterId, slice: number, drop: number, expiresAt: number): Promise<Map<number, number>>;
  /** Forgets slices no longer counted (left behind by an idle gap). */
  dropSlices(id: CounterId, slices: readonly number[]): Promise<void>;
}

export interface Check {
  readonly rule: Rule;
  /** What is counted (an IP, an account id, a key id, an e-mail hash). */
  readonly subject: string;
}

export interface Verdict {
  readonly rule: Rule;
  readonly allowed: boolean;
  /** Requests left (0 when denied). */
  readonly remaining: number;
  /** Epoch seconds when quota comes back (fixed: window end; sliding: oldest counted slice leaves). */
  readonly resetAt: number;
  /** Epoch seconds when one more request would pass, nothing else arriving. */
  readonly reopensAt: number;
  /** This request's ordinal in the window (requests counted so far, this one included). */
  readonly count: number;
}

export interface Outcome {
  readonly verdicts: readonly Verdict[];
  /** Rules whose store call failed. */
  readonly failed: readonly { readonly rule: Rule; readonly error: unknown }[];
}

/** Retry-After of a 503 when a fail-closed rule could not be counted. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export class Limiter {
  constructor(private readonly store: CounterStore) {}

  /** Counts every check in parallel; never throws (failures are reported in the outcome). */
  async evaluate(checks: readonly Check[], nowMs: number): Promise<Outcome> {
    const settled = await Promise.allSettled(checks.map((c) => this.count(c, nowMs)));
    const verdicts: Verdict[] = [];
    const failed: { rule: Rule; error: unknown }[] = [];
    settled.forEach((s, i) => {
      if (s.status === "fulfilled") verdicts.push(s.value);
      else failed.push({ rule: checks[i]!.rule, error: s.reason });
    });
    return { verdicts, failed };
  }

  private async count(check: Check, nowMs: number): Promise<Verdict> {
    const { rule, subject } = check;
    const id: CounterId = { rule: rule.name, subject };
    if (rule.algorithm === "fixed") {
      const w = fixedWindow(nowMs, rule.windowSeconds);
      const n = await this.store.hitFixed(id, w.start, w.end);
      return { rule, allowed: n <= rule.limit, remaining: Math.max(0, rule.limit - n), resetAt: w.end, reopensAt: w.end, count: n };
    }
    const spec = slidingSpec(rule);
    const slice = sliceIndex(nowMs, spec);
    const oldest = oldestCounted(slice, spec);
    const counts = await this.store.hitSliding(id, slice, oldest - 1, slidingExpiresAt(slice, spec));
    // Slices older than the oldest counted one no longer count (the store already removed `oldest - 1`).
    const stale = [...counts.keys()].filter((s) => s < oldest);
    if (stale.length) await this.store.dropSlices(id, stale);
    const n = slidingCount(counts, slice, spec);
    return {
      rule,
      allowed: n <= rule.limit,
      remaining: Math.max(0, rule.limit - n),
      resetAt: slidingResetAt(counts, slice, spec),
      reopensAt: slidingReopensAt(counts, slice, spec, rule.limit),
      count: n,
    };
  }
}

/**
 * The decision on an outcome: 429 for the denial that lasts longest, 503 when a fail-closed rule
 * could not be counted, otherwise the tightest verdict (for the `RateLimit` header).
 * Fail-open failures are the caller's to log; they count as allowed.
 */
export function decide(outcome: Outcome, nowMs: number): Verdict | undefined {
  const denied = outcome.verdicts.filter((v) => !v.allowed);
  if (denied.length) {
    const worst = denied.reduce((a, b) => (b.reopensAt > a.reopensAt ? b : a));
    throw new RateLimited({
      rule: worst.rule.name,
      limit: worst.rule.limit,
      windowSeconds: worst.rule.windowSeconds,
      retryAfterSeconds: secondsUntil(nowMs, worst.reopensAt),
    });
  }
  if (outcome.failed.some((f) => f.rule.failure === "closed")) throw new ServiceUnavailable(UNAVAILABLE_RETRY_AFTER_SECONDS);
  return tightest(outcome.verdicts);
}

/** Fewest requests left; on a tie, the one that resets last. */
export function tightest(verdicts: readonly (Verdict | undefined)[]): Verdict | undefined {
  let best: Verdict | undefined;
  for (const v of verdicts) {
    if (!v) continue;
    if (!best || v.remaining < best.remaining || (v.remaining === best.remaining && v.resetAt > best.resetAt)) best = v;
  }
  return best;
}

/** `RateLimit: "<rule>";r=<remaining>;t=<seconds>` (IETF RateLimit headers draft). */
export function rateLimitHeader(v: Verdict, nowMs: number): string {
  return `"${v.rule.name}";r=${v.remaining};t=${secondsUntil(nowMs, v.resetAt)}`;
}
