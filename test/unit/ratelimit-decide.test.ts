/** The decision on a request's verdicts: which denial answers, which rule the RateLimit header shows. */
import { describe, expect, it } from "vitest";
import { RateLimited, ServiceUnavailable } from "../../shared/errors.ts";
import { decide, rateLimitHeader, tightest, UNAVAILABLE_RETRY_AFTER_SECONDS, type Outcome, type Verdict } from "../../shared/ratelimit/limiter.ts";
import { buildRules, type Rule } from "../../shared/ratelimit/rules.ts";
import { config } from "../../shared/config.ts";

const rules = buildRules(config());
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const sec = NOW / 1000;
const verdict = (rule: Rule, v: Partial<Verdict>): Verdict => ({ rule, allowed: true, remaining: 5, count: 1, resetAt: sec + 60, reopensAt: sec + 60, ...v });
const outcome = (verdicts: Verdict[], failed: Outcome["failed"] = []): Outcome => ({ verdicts, failed });
const decision = (o: Outcome) => Promise.resolve().then(() => decide(o, NOW));

describe("two rules denied at once", () => {
  it("answers with the denial that lasts longest, its rule, limit, window and Retry-After", async () => {
    const shortDenial = verdict(rules.login_ip, { allowed: false, remaining: 0, reopensAt: sec + 30, resetAt: sec + 300 });
    const longDenial = verdict(rules.login_email, { allowed: false, remaining: 0, reopensAt: sec + 90, resetAt: sec + 100 });

    for (const order of [[shortDenial, longDenial], [longDenial, shortDenial]]) {
      const d = decision(outcome(order));

      await expect(d).rejects.toBeInstanceOf(RateLimited);
      await expect(d).rejects.toMatchObject({ info: { rule: "login_email", limit: 10, windowSeconds: 900, retryAfterSeconds: 90 } });
    }
  });

  it("on equal reopening, the first denial answers", async () => {
    const a = verdict(rules.login_ip, { allowed: false, remaining: 0, reopensAt: sec + 30 });
    const b = verdict(rules.password_ip, { allowed: false, remaining: 0, reopensAt: sec + 30 });

    await expect(decision(outcome([a, b]))).rejects.toMatchObject({ info: { rule: "login_ip" } });
  });

  it("a denial wins over a fail-closed rule that could not be counted", async () => {
    const denied = verdict(rules.login_ip, { allowed: false, remaining: 0, reopensAt: sec + 12 });

    await expect(decision(outcome([denied], [{ rule: rules.login_email, error: new Error("timeout") }]))).rejects.toMatchObject({ info: { retryAfterSeconds: 12 } });
  });

  it("a denial whose reopening is already past still says Retry-After 1, never 0 or negative", async () => {
    const stale = verdict(rules.login_ip, { allowed: false, remaining: 0, reopensAt: sec - 5 });
    const now = verdict(rules.password_ip, { allowed: false, remaining: 0, reopensAt: sec });

    await expect(decision(outcome([stale]))).rejects.toMatchObject({ info: { retryAfterSeconds: 1 } });
    await expect(decision(outcome([now]))).rejects.toMatchObject({ info: { retryAfterSeconds: 1 } });
  });
});

describe("no denial", () => {
  it("503 when a fail-closed rule could not be counted; a fail-open failure is allowed", async () => {
    const ok = verdict(rules.global, {});
    const closed = decision(outcome([ok], [{ rule: rules.login_ip, error: new Error("down") }]));

    await expect(closed).rejects.toBeInstanceOf(ServiceUnavailable);
    await expect(closed).rejects.toMatchObject({ status: 503, headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) } });
    await expect(decision(outcome([ok], [{ rule: rules.global, error: new Error("down") }]))).resolves.toBe(ok);
    await expect(decision(outcome([]))).resolves.toBeUndefined();
  });

  it("the RateLimit header shows the tightest rule: fewest left, then the one that resets last", () => {
    const roomy = verdict(rules.global, { remaining: 50, resetAt: sec + 10 });
    const tight = verdict(rules.reports_user, { remaining: 2, resetAt: sec + 20 });
    const tieLater = verdict(rules.reports_account, { remaining: 2, resetAt: sec + 40 });

    expect(decide(outcome([roomy, tight]), NOW)).toBe(tight);
    expect(tightest([tight, roomy])).toBe(tight);
    expect(tightest([tight, tieLater])).toBe(tieLater);
    expect(tightest([tieLater, tight])).toBe(tieLater);
    expect(tightest([undefined, roomy, undefined])).toBe(roomy);
    expect(tightest([tight, verdict(rules.global, { remaining: 50, resetAt: sec + 90 })])).toBe(tight);
    const sameReset = verdict(rules.reports_account, { remaining: 2, resetAt: sec + 20 });
    expect(tightest([tight, sameReset])).toBe(tight);
    expect(tightest([sameReset, tight])).toBe(sameReset);
    expect(tightest([])).toBeUndefined();
    expect(rateLimitHeader(tieLater, NOW)).toBe('"reports_account";r=2;t=40');
    expect(rateLimitHeader(verdict(rules.global, { remaining: 0, resetAt: sec - 3 }), NOW)).toBe('"global";r=0;t=1');
  });
});
