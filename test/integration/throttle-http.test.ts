/**
 * Throttling in the HTTP layer against DynamoDB Local: the real handler modules in production
 * mode (429 with its headers, exactly N, allow-list, development and the switch), and the
 * middlewares on route rows that land with other issues (e-mail rule, RateLimit on allowed
 * responses, fail open / fail closed on a dead or hanging DynamoDB).
 */
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { config, resetConfig } from "../../shared/config.ts";
import { throttleKeys } from "../../shared/db/keys.ts";
import { throttleClient } from "../../shared/db/throttle-store.ts";
import { ServiceUnavailable } from "../../shared/errors.ts";
import { setClock } from "../../shared/clock.ts";
import type { ApiRequest, RequestState } from "../../shared/http/context.ts";
import { throttleByClient, throttleByIdentity } from "../../shared/http/throttle.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import type { Route } from "../../shared/routes.ts";
import { fixedWindow } from "../../shared/ratelimit/window.ts";
import { eventFor, invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

const ENV = ["APP_ENV", "ENABLE_THROTTLE", "THROTTLE_LIMIT", "THROTTLE_ALLOWED_IPS", "THROTTLE_TIMEOUT_MS", "DYNAMODB_ENDPOINT"] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
function setEnv(env: Partial<Record<(typeof ENV)[number], string>>): void {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  // A loaded CI machine can be slow: a timed-out counter call would fail open and skew the counts.
  Object.assign(process.env, { THROTTLE_TIMEOUT_MS: "15000", ...env });
  resetConfig();
}
afterEach(() => setEnv({}));

/**
 * Every request of this file reads a pinned clock, 20 s into the current minute: a burst lands in
 * one fixed window whatever the real time, and Retry-After is exact.
 */
let pinnedMs = 0;
beforeEach(() => {
  pinnedMs = Math.floor(Date.now() / 60_000) * 60_000 + 20_000;
  setClock(() => pinnedMs);
});
afterEach(() => setClock(undefined));

let acc: AccountFixture;
beforeAll(async () => {
  acc = await makeAccount("Throttled Co");
});

let ipSeq = 0;
const freshIp = () => `198.18.${Math.floor(++ipSeq / 250)}.${(ipSeq % 250) + 1}`;
const show = (sourceIp: string, key: string | undefined = acc.agentKey) =>
  invoke("accounts.show", { params: { account_id: acc.accountId }, ...(key ? { key } : {}), sourceIp });

async function globalCounter(ip: string, nowMs = pinnedMs) {
  const client = throttleClient(config());
  try {
    const pk = throttleKeys.fixed("global", ip, fixedWindow(nowMs, 60).start).pk;
    const out = await client.send(new GetItemCommand({ TableName: config().THROTTLE_TABLE_NAME, Key: { pk: { S: pk } }, ConsistentRead: true }));
    return out.Item?.["n"]?.N;
  } finally {
    client.destroy();
  }
}

describe("production: the global rule on a real route", () => {
  it("lets exactly THROTTLE_LIMIT of 12 concurrent requests through, then 429 with the documented headers", async () => {
    setEnv({ APP_ENV: "production", THROTTLE_LIMIT: "5" });
    const ip = freshIp();
    const replies = await Promise.all(Array.from({ length: 12 }, () => show(ip)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(5);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(7);
    const r = limited[0]!;
    const retryAfter = Number(r.headers["retry-after"]);
    expect(retryAfter).toBe(Math.ceil(fixedWindow(pinnedMs, 60).end - pinnedMs / 1000));
    expect(r.json).toEqual({ error: "Too many requests", code: "rate_limited", retry_after: retryAfter });
    expect(r.headers["ratelimit-policy"]).toBe('"global";q=5;w=60');
    expect(r.headers["ratelimit"]).toBe(`"global";r=0;t=${retryAfter}`);
    expect(r.headers["x-request-id"]).toBeTruthy();
    expect(await globalCounter(ip)).toBe("12");
  });

  it("counts requests before authentication: a key-guessing client is stopped too", async () => {
    setEnv({ APP_ENV: "production", THROTTLE_LIMIT: "3" });
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await show(ip, `cv_guess-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it("counts per client IP, and gives the global rule's RateLimit on routes without rules of their own", async () => {
    setEnv({ APP_ENV: "production", THROTTLE_LIMIT: "2" });
    const [a, b] = [freshIp(), freshIp()];
    expect([(await show(a)).status, (await show(a)).status, (await show(a)).status]).toEqual([200, 200, 429]);
    const other = await show(b);
    expect(other.status).toBe(200);
    expect(other.headers["ratelimit"]).toMatch(/^"global";r=1;t=\d+$/);
  });

  it("counts a password reset (PUT) by the overall rule only: retyping a weak password never locks the reset", async () => {
    setEnv({ APP_ENV: "production" });
    const ip = freshIp();
    const body = { reset_password_token: "x".repeat(43), password: "short", password_confirmation: "short" };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await invoke("auth.password_reset", { body, sourceIp: ip })).status);
    expect(statuses).toEqual([422, 422, 422, 422, 422, 422, 422]);
    const request = await invoke("auth.password_request", { body: { email: "nobody@example.com" }, sourceIp: ip });
    expect(request.headers["ratelimit"]).toMatch(/^"password_ip";r=4;t=\d+$/);
  });

  it("never counts an allow-listed IP (IPv4 CIDR, IPv6 CIDR, single address)", async () => {
    setEnv({ APP_ENV: "production", THROTTLE_LIMIT: "1", THROTTLE_ALLOWED_IPS: "192.0.2.0/24,2001:db8::/32,203.0.113.99" });
    for (const ip of ["192.0.2.10", "2001:db8:5::1", "203.0.113.99", "::ffff:192.0.2.11"]) {
      const statuses = await Promise.all(Array.from({ length: 4 }, async () => (await show(ip)).status));
      expect(statuses, ip).toEqual([200, 200, 200, 200]);
      expect(await globalCounter(ip.replace("::ffff:", "")), ip).toBeUndefined();
    }
    expect((await Promise.all([show("203.0.113.98"), show("203.0.113.98")])).map((r) => r.status).sort()).toEqual([200, 429]);
  });
});

describe("never a 429 where throttling is off", () => {
  it.each([
    ["development", { APP_ENV: "development", THROTTLE_LIMIT: "1" }],
    ["production with ENABLE_THROTTLE=false", { APP_ENV: "production", ENABLE_THROTTLE: "false", THROTTLE_LIMIT: "1" }],
  ] as const)("%s: 8 requests from one IP all pass, nothing is counted", async (_label, env) => {
    setEnv(env);
    const ip = freshIp();
    const statuses = await Promise.all(Array.from({ length: 8 }, async () => (await show(ip)).status));
    expect(statuses).toEqual(Array(8).fill(200));
    expect(await globalCounter(ip)).toBeUndefined();
  });
});

// Route rows of other issues (login, checkout, reports) run the same middlewares: driven directly here.
const row = (throttle: string[], extra: Partial<Route> = {}): Route => ({
  id: "test.row",
  method: "POST",
  path: "/api/v1/test/row",
  fn: "none",
  auth: "public",
  throttle,
  ...extra,
});

async function through(route: Route, call: { sourceIp: string; body?: unknown; identity?: RequestState["identity"] }) {
  const event = eventFor(route, { sourceIp: call.sourceIp, body: call.body });
  const api: RequestState = { route, requestId: "req", sourceIp: call.sourceIp, now: new Date(pinnedMs), headers: {}, replyHeaders: {} };
  if (call.identity) api.identity = call.identity;
  const request = { event, context: { requestState: api }, response: undefined, error: undefined, internal: {} } as unknown as ApiRequest;
  await throttleByClient(route).before!(request);
  await api.clientChecks; // what the auth stage awaits alongside the key lookup
  await throttleByIdentity(route).before!(request);
  return api.replyHeaders;
}

describe("rules of other routes, through the middlewares", () => {
  it("login_email trips across different IPs on the trimmed, lower-cased body e-mail", async () => {
    setEnv({ APP_ENV: "production" });
    const route = row(["login_email"]);
    const email = `who-${Date.now()}@example.com`;
    const variants = [email, ` ${email.toUpperCase()} `, email.replace("who", "WHO")];
    const headers: string[] = [];
    for (let i = 0; i < 10; i++) headers.push((await through(route, { sourceIp: freshIp(), body: { email: variants[i % 3], password: "x" } }))["ratelimit"]!);
    expect(headers.map((h) => /r=(\d+)/.exec(h)![1])).toEqual(["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"]);
    expect(headers[0]).toMatch(/^"login_email";r=9;t=\d+$/);
    await expect(through(route, { sourceIp: freshIp(), body: { email, password: "x" } })).rejects.toMatchObject({
      status: 429,
      headers: { "ratelimit-policy": '"login_email";q=10;w=900' },
    });
    // another e-mail is not affected; a body without an e-mail is not counted by that rule
    await expect(through(route, { sourceIp: freshIp(), body: { email: `other-${email}` } })).resolves.toBeDefined();
    const unread = await through(route, { sourceIp: freshIp(), body: "not json" });
    expect(unread["ratelimit"]).toMatch(/^"global";r=\d+;t=\d+$/);
    const stored = throttleKeys.sliding("login_email", sha256Hex(email)).pk;
    expect(stored).not.toContain("@");
  });

  it("puts the tightest of several rules in RateLimit (reports: per account and per key)", async () => {
    setEnv({ APP_ENV: "production" });
    const route = row(["reports_account", "reports_user"], { method: "GET", auth: "api_key", path: "/api/v2/accounts/{account_id}/reports" });
    const identity = { userId: 1, keyId: `key-${Date.now()}`, accountId: 900_000 + Math.floor(Math.random() * 1000) };
    const h = await through(route, { sourceIp: freshIp(), identity });
    expect(h["ratelimit"]).toMatch(/^"reports_user";r=99;t=\d+$/);
  });
});

describe("when DynamoDB fails", () => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
  /** A TCP server that accepts and never answers (a hanging endpoint). */
  async function hanging(): Promise<string> {
    const srv = createServer((sock) => sockets.push(sock));
    servers.push(srv);
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const addr = srv.address();
    return `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  }
  /** A port nobody listens on (connection refused). */
  async function refused(): Promise<string> {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const addr = srv.address();
    await new Promise((r) => srv.close(r));
    return `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  }

  it.each([
    ["refused", refused],
    ["hanging", hanging],
  ] as const)("%s: a general rule fails open with an error log and a metric line", async (_label, endpoint) => {
    setEnv({ APP_ENV: "production", DYNAMODB_ENDPOINT: await endpoint(), THROTTLE_TIMEOUT_MS: "150" });
    const errors = vi.spyOn(console, "error");
    const lines = vi.spyOn(console, "log");
    try {
      const t0 = Date.now();
      await expect(through(row(["checkout_link"]), { sourceIp: freshIp() })).resolves.toEqual({});
      expect(Date.now() - t0).toBeLessThan(2_000);
      const logged = errors.mock.calls.map((c) => JSON.parse(String(c[0])) as Record<string, unknown>);
      expect(logged.filter((l) => l["message"] === "rate limiter store failed").map((l) => l["rule"]).sort()).toEqual(["checkout_link", "global"]);
      const metrics = lines.mock.calls.map((c) => JSON.parse(String(c[0])) as Record<string, unknown>).filter((l) => "_aws" in l);
      expect(metrics.map((m) => [m["Rule"], m["Mode"], m["RateLimiterStoreError"]]).sort()).toEqual([
        ["checkout_link", "open", 1],
        ["global", "open", 1],
      ]);
    } finally {
      errors.mockRestore();
      lines.mockRestore();
    }
  });

  it.each([
    ["refused", refused],
    ["hanging", hanging],
  ] as const)("%s: a security rule fails closed with 503 and Retry-After", async (_label, endpoint) => {
    setEnv({ APP_ENV: "production", DYNAMODB_ENDPOINT: await endpoint(), THROTTLE_TIMEOUT_MS: "150" });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const lines = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const attempt = through(row(["checkout_coupon"]), { sourceIp: freshIp(), body: {} });
      await expect(attempt).rejects.toBeInstanceOf(ServiceUnavailable);
      await expect(attempt).rejects.toMatchObject({ status: 503, headers: { "retry-after": "5" } });
    } finally {
      errors.mockRestore();
      lines.mockRestore();
    }
  });
});
