/** The client's retry policy, as pure functions: Retry-After parsing and cap, the widening backoff, what counts as idempotent. */
import { describe, expect, it } from "vitest";
import { backoffMs, isIdempotent, resolveRetry, retryAfterMs } from "../../client/src/retry.ts";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const policy = resolveRetry({ now: () => NOW, random: () => 1, jitter: 0.25 });

describe("Retry-After", () => {
  it("reads delta-seconds and an HTTP date, and caps both at 60 s", () => {
    const values = ["17", "0", "3600", new Date(NOW + 5000).toUTCString(), new Date(NOW + 600_000).toUTCString(), new Date(NOW - 5000).toUTCString()];

    const ms = values.map((v) => retryAfterMs(v, policy));

    expect(ms).toEqual([17_000, 0, 60_000, 5000, 60_000, 0]);
  });

  it("is ignored when absent or unreadable (the backoff applies)", () => {
    const ms = [null, "", "soon", "-3", "1.5"].map((v) => retryAfterMs(v, policy));

    expect(ms).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it("honours a smaller cap when the caller sets one", () => {
    const capped = resolveRetry({ maxRetryAfterMs: 5000 });

    expect(retryAfterMs("17", capped)).toBe(5000);
  });
});

describe("backoff", () => {
  it("doubles from 1 s (1, 2, 4, 8 s) with at most the jitter fraction added", () => {
    const none = resolveRetry({ random: () => 0 });

    const steps = [1, 2, 3, 4].map((attempt) => [backoffMs(none, attempt), backoffMs(policy, attempt)]);

    expect(steps).toEqual([
      [1000, 1250],
      [2000, 2500],
      [4000, 5000],
      [8000, 10_000],
    ]);
  });

  it("defaults to 5 attempts and never fewer than 1", () => {
    expect([resolveRetry().attempts, resolveRetry({ attempts: 0 }).attempts, resolveRetry({ attempts: 3 }).attempts]).toEqual([5, 1, 3]);
  });
});

describe("idempotent requests", () => {
  it("are GET, PUT, DELETE, and any request carrying an Idempotency-Key", () => {
    const plain = new Headers();
    const keyed = new Headers({ "Idempotency-Key": "k-1" });

    const verdicts = ["GET", "PUT", "DELETE", "POST", "PATCH"].map((m) => [isIdempotent(m, plain), isIdempotent(m, keyed)]);

    expect(verdicts).toEqual([
      [true, true],
      [true, true],
      [true, true],
      [false, true],
      [false, true],
    ]);
  });
});
