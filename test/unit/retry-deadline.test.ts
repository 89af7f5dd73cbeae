/**
 * The HTTP layer bounds a contended write's retries by the time its function has left, not by a
 * count: on a slow store, twenty writers queued on one item all get through; when time runs out
 * the client gets 409 stale before the function would time out.
 */
import type { Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { api, RETRY_RESERVE_MS } from "../../shared/http/api.ts";
import { retryOnStale, STALE_ATTEMPTS } from "../../shared/domain/retry.ts";
import { Stale } from "../../shared/errors.ts";
import { plansReply } from "../../shared/http/schemas/checkout.ts";
import { routeById } from "../../shared/routes.ts";
import { eventFor } from "../support/api.ts";

const contextWith = (remainingMs: number) => ({ awsRequestId: "deadline", functionName: "checkout-plans", getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;

/** A handler whose write always loses its race, and how many attempts it made. */
function alwaysStale() {
  let attempts = 0;
  const handler = api("checkout.plans", { response: plansReply }, async () =>
    retryOnStale(async () => {
      attempts++;
      throw new Stale();
    }, { baseMs: 1, capMs: 2 }),
  );
  return { handler, calls: () => attempts };
}

describe("retries of a contended write inside a request", () => {
  it("go on past the attempt count while the function has time, then answer 409 stale with Retry-After before it times out", async () => {
    const { handler, calls } = alwaysStale();
    const remainingMs = RETRY_RESERVE_MS + 400;
    const started = Date.now();

    const res = await handler(eventFor(routeById("checkout.plans")), contextWith(remainingMs));

    expect(res.statusCode).toBe(409);
    expect(JSON.parse(String(res.body))).toMatchObject({ code: "stale" });
    expect(res.headers?.["retry-after"] ?? res.headers?.["Retry-After"]).toBe("1");
    expect(calls()).toBeGreaterThan(STALE_ATTEMPTS);
    expect(Date.now() - started).toBeLessThan(remainingMs);
  });

  it("a function with no time to spare makes one attempt", async () => {
    const { handler, calls } = alwaysStale();

    const res = await handler(eventFor(routeById("checkout.plans")), contextWith(RETRY_RESERVE_MS - 100));

    expect(res.statusCode).toBe(409);
    expect(calls()).toBe(1);
  });
});
