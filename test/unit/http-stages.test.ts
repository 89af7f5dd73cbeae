/**
 * The order of the API request stages is a contract: the client rate-limit checks start before
 * the key lookup, the auth stage awaits them with it, and their verdict wins over the key's (a
 * throttled client gets 429, not 401). Driven here on the real stages, without a key, so that no
 * store is read.
 */
import type { Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { API_STAGES } from "../../shared/http/api.ts";
import type { ApiRequest, RequestState } from "../../shared/http/context.ts";
import { RateLimited, Unauthorized } from "../../shared/errors.ts";
import { routeById } from "../../shared/routes.ts";
import { eventFor } from "../support/api.ts";

const stage = (name: string) => {
  const found = API_STAGES.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found.stage;
};

/** An account route's request after the lifecycle stage, without an api_access_token. */
async function keylessRequest(): Promise<{ request: ApiRequest; state: RequestState }> {
  const route = routeById("accounts.show");
  const request = {
    event: eventFor(route, { params: { account_id: 1 } }),
    context: { awsRequestId: "t" } as Context,
    response: null,
    error: null,
    internal: {},
  } as ApiRequest;
  await stage("lifecycle")(route).before!(request);
  return { request, state: request.context.requestState! };
}

const throttled = () => new RateLimited({ rule: "global", limit: 1, windowSeconds: 60, retryAfterSeconds: 5 });

/** A promise settled from outside: the client checks still under way. */
function pending(): { promise: Promise<void>; reject: (e: unknown) => void } {
  let reject: (e: unknown) => void = () => undefined;
  const promise = new Promise<void>((_resolve, rej) => {
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, reject };
}

describe("API request stages", () => {
  it("run in this order: lifecycle, route headers, url encoding, client throttle, auth, identity throttle, body", () => {
    expect(API_STAGES.map((s) => s.name)).toEqual(["lifecycle", "route-headers", "url-encoding", "client-throttle", "auth", "identity-throttle", "body"]);
  });

  it("a throttled client gets 429 before 401: the client verdict wins over a missing key", async () => {
    const { request, state } = await keylessRequest();
    state.clientChecks = Promise.reject(throttled());
    state.clientChecks.catch(() => undefined);
    const route = routeById("accounts.show");

    const outcome = stage("auth")(route).before!(request);

    await expect(outcome).rejects.toBeInstanceOf(RateLimited);
    await expect(outcome).rejects.toMatchObject({ status: 429 });
  });

  it("a client within its limits gets the key's 401", async () => {
    const { request, state } = await keylessRequest();
    state.clientChecks = Promise.resolve();
    const route = routeById("accounts.show");

    const outcome = stage("auth")(route).before!(request);

    await expect(outcome).rejects.toBeInstanceOf(Unauthorized);
  });

  it("the auth stage settles only with the client checks left under way by the client-throttle stage", async () => {
    const { request, state } = await keylessRequest();
    const checks = pending();
    state.clientChecks = checks.promise;
    const route = routeById("accounts.show");
    let settled = false;

    const outcome = stage("auth")(route).before!(request);
    void Promise.resolve(outcome).then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise<void>((r) => setImmediate(r));
    const settledBeforeChecks = settled;
    checks.reject(throttled());

    expect(settledBeforeChecks).toBe(false);
    await expect(outcome).rejects.toBeInstanceOf(RateLimited);
  });
});
