/** The client's retry policy, as pure functions: Retry-After parsing and cap, the widening backoff, what counts as idempotent. */
import { describe, expect, it } from "vitest";
import { backoffMs, isIdempotent, resolveRetry, retryAfterMs, serverRetryAfterMs } from "../../client/src/retry.ts";
import { errorFromReply } from "../../client/src/errors.ts";

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

  it("is reported uncapped: what the server asked", () => {
    expect([serverRetryAfterMs("3600", () => NOW), serverRetryAfterMs(new Date(NOW + 600_000).toUTCString(), () => NOW), serverRetryAfterMs("soon", () => NOW)]).toEqual([3_600_000, 600_000, undefined]);
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

describe("a request that spends a single-use token", () => {
  it("is not repeated although it is a PUT: a password reset", () => {
    expect(isIdempotent("PUT", new Headers(), "auth.password_reset")).toBe(false);
    expect(isIdempotent("PUT", new Headers(), "inboxes.update")).toBe(true);
  });
});

describe("the error of a reply", () => {
  it("keeps the message of the sign-in's 401 (errors: [\"...\"]) and the uncapped Retry-After it is given", () => {
    const err = errorFromReply(401, new Headers({ "x-request-id": "r-1" }), { success: false, errors: ["Invalid login credentials. Please try again."] }, undefined);
    expect(err).toMatchObject({ status: 401, code: "http_401", message: "Invalid login credentials. Please try again.", fields: [], requestId: "r-1" });
    const throttled = errorFromReply(429, new Headers(), { error: "Too many requests", code: "rate_limited", retry_after: 120 }, 120_000);
    expect(throttled).toMatchObject({ code: "rate_limited", message: "Too many requests", retryAfterMs: 120_000 });
  });
});
