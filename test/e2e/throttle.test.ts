/**
 * Rate limiting over real HTTP: the sandbox started in-process with APP_ENV=production and a small
 * THROTTLE_LIMIT (the client IP is the socket's, 127.0.0.1), then the same run in development.
 * The sandbox's clock is the real one shifted to one second into a minute, so a run never straddles
 * a window boundary whatever the wall clock says.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";

const LIMIT = 4;
const RUN = [1, 2, 3, 4, 5, 6, 7] as const;

/** Milliseconds the sandbox's clock is shifted by. */
let shift = 0;
const clock = () => Date.now() + shift;

/** From now on the clock reads one second past the start of a minute, and runs on from there. */
function atWindowStart(): void {
  shift = 1000 - (Date.now() % 60_000);
}

async function sandboxWith(env: Record<string, string>): Promise<Sandbox> {
  return startTestSandbox("e2e-thr", { env, clock });
}

function caller(sandbox: Sandbox) {
  const base = sandbox.info.apiBase.replace("localhost", "127.0.0.1");
  return (path: string, key?: string) =>
    fetch(`${base}${path}`, { headers: key ? { api_access_token: key } : {}, signal: AbortSignal.timeout(10_000) });
}

describe("APP_ENV=production", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await sandboxWith({ APP_ENV: "production", THROTTLE_LIMIT: String(LIMIT), THROTTLE_TIMEOUT_MS: "15000" });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it(`the ${LIMIT + 1}th request of a minute from one IP gets the 429 with Retry-After, RateLimit-Policy and RateLimit`, async () => {
    const call = caller(sandbox);
    const { accountId, agentApiKey } = sandbox.info;
    atWindowStart();
    const t0 = clock();
    const replies = [];
    for (const _ of RUN) replies.push(await call(`/api/v1/accounts/${accountId}`, agentApiKey));
    const t1 = clock();
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429, 429]);
    const limited = replies[LIMIT]!;
    const retryAfter = Number(limited.headers.get("retry-after"));
    const windowEnd = Math.floor(t0 / 60_000) * 60 + 60;
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil(windowEnd - t1 / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil(windowEnd - t0 / 1000));
    expect(limited.headers.get("ratelimit-policy")).toBe(`"global";q=${LIMIT};w=60`);
    expect(limited.headers.get("ratelimit")).toBe(`"global";r=0;t=${retryAfter}`);
    expect(await limited.json()).toEqual({ error: "Too many requests", code: "rate_limited", retry_after: retryAfter });
    // the limit is per IP, not per key: the other key and no key at all are refused as well
    expect((await call(`/api/v1/accounts/${accountId}`, sandbox.info.adminApiKey)).status).toBe(429);
    expect((await call(`/api/v1/accounts/${accountId}`)).status).toBe(429);
  });

  it("counts requests no route serves (404s) toward the same per-IP limit", async () => {
    const call = caller(sandbox);
    const { accountId, agentApiKey } = sandbox.info;
    // Two minutes on, one second into that minute: a window the test above did not touch.
    shift = 1000 - (Date.now() % 60_000) + 120_000;

    const statuses = [];
    for (const path of ["/no/such/path", `/api/v1/accounts/${accountId}`, "/api/v1/nothing", "/no/such/path"]) statuses.push((await call(path, agentApiKey)).status);
    const over = await call("/no/such/path");
    const routed = await call(`/api/v1/accounts/${accountId}`, agentApiKey);

    expect(statuses).toEqual([404, 200, 404, 404]);
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ code: "rate_limited" });
    expect(over.headers.get("retry-after")).toMatch(/^[0-9]+$/);
    expect(routed.status).toBe(429);
  });
});

describe("the same run in development", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await sandboxWith({ APP_ENV: "development", THROTTLE_LIMIT: "1" });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("never produces a 429", async () => {
    // The sandbox gives the counters DynamoDB Local's time (its own default, 10 s).
    expect(sandbox.config.THROTTLE_TIMEOUT_MS).toBe(10_000);
    const call = caller(sandbox);
    const { accountId, agentApiKey } = sandbox.info;
    const statuses: number[] = [];
    for (const _ of RUN) statuses.push((await call(`/api/v1/accounts/${accountId}`, agentApiKey)).status);
    const parallel = await Promise.all(RUN.map(async () => (await call(`/api/v1/accounts/${accountId}/inboxes`, agentApiKey)).status));
    expect([...statuses, ...parallel]).toEqual(Array(RUN.length * 2).fill(200));
  });
});
