/**
 * The brief's security limits over real HTTP, in a sandbox started with APP_ENV=production:
 * coupon (10 / 10 min per IP), subscribe (5 / 30 min per IP), login per e-mail (10 / 15 min,
 * whatever the IP), and the same requests in development never throttled.
 * Different client IPs are real: requests leave from 127.0.0.x source addresses (all loopback).
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

function post(sandbox: Sandbox, path: string, body: unknown, fromIp = "127.0.0.1"): Promise<Reply> {
  const port = Number(new URL(sandbox.info.apiBase).port);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, method: "POST", localAddress: fromIp, timeout: 20_000, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(data);
  });
}

async function sandboxWith(env: Record<string, string>): Promise<Sandbox> {
  return startTestSandbox("e2e-tp", { env });
}

const coupon = { code: "BEMVINDO15", plan: "profissional", billing_cycle: "monthly" };
const subscribeBody = (n: number) => ({
  plan: "essencial",
  billing_cycle: "monthly",
  account_name: `Loja ${n}`,
  user: { name: "Dona", email: `dona-${n}-${Math.random().toString(36).slice(2, 8)}@loja.com.br`, password: "senha-segura-1" },
  customer: { name: "Dona", email: "financeiro@loja.com.br", phone: "(31) 98765-4321", cnpj: "12ABC34501DE35" },
});

function expectThrottled(reply: Reply, rule: string, limit: number, window: number): void {
  expect(reply.status).toBe(429);
  const retryAfter = Number(reply.headers["retry-after"]);
  expect(retryAfter).toBeGreaterThan(0);
  // Sliding rules count in tenth-of-window slices: a request is remembered up to 1.1 windows.
  expect(retryAfter).toBeLessThanOrEqual(Math.ceil(window * 1.1));
  expect(reply.headers["ratelimit-policy"]).toBe(`"${rule}";q=${limit};w=${window}`);
  expect(reply.headers["ratelimit"]).toBe(`"${rule}";r=0;t=${retryAfter}`);
  expect(reply.json).toEqual({ error: "Too many requests", code: "rate_limited", retry_after: retryAfter });
}

const scenarios = {
  /** 11 coupon checks from one IP. */
  coupon: async (s: Sandbox) => {
    const out: Reply[] = [];
    for (let i = 0; i < 11; i++) out.push(await post(s, "/api/v1/public_checkout/coupon", coupon, "127.0.0.21"));
    return out;
  },
  /** 6 subscribes from one IP. */
  subscribe: async (s: Sandbox) => {
    const out: Reply[] = [];
    for (let i = 0; i < 6; i++) out.push(await post(s, "/api/v1/public_checkout/subscribe", subscribeBody(i), "127.0.0.22"));
    return out;
  },
  /** 11 sign-ins for one e-mail, each from its own IP (the per-IP rule never trips). */
  login: async (s: Sandbox) => {
    const out: Reply[] = [];
    for (let i = 0; i < 11; i++) {
      out.push(await post(s, "/auth/sign_in", { email: i % 2 ? s.info.adminEmail.toUpperCase() : ` ${s.info.adminEmail}`, password: "wrong-password" }, `127.0.1.${i + 1}`));
    }
    return out;
  },
};

describe("APP_ENV=production", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await sandboxWith({ APP_ENV: "production", THROTTLE_TIMEOUT_MS: "15000" });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("the 11th coupon request in 10 minutes gets the 429 with its headers", async () => {
    const replies = await scenarios.coupon(sandbox);
    expect(replies.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(replies[0]!.headers["ratelimit"]).toMatch(/^"checkout_coupon";r=9;t=\d+$/);
    expectThrottled(replies[10]!, "checkout_coupon", 10, 600);
  });

  it("the 6th subscribe in 30 minutes gets the 429 with its headers", async () => {
    const replies = await scenarios.subscribe(sandbox);
    expect(replies.slice(0, 5).map((r) => r.status)).toEqual(Array(5).fill(201));
    expectThrottled(replies[5]!, "checkout_subscribe", 5, 1800);
  });

  it("a login's e-mail rule trips across different IPs (e-mail trimmed and lower-cased)", async () => {
    const replies = await scenarios.login(sandbox);
    expect(replies.slice(0, 10).map((r) => r.status)).toEqual(Array(10).fill(401));
    expectThrottled(replies[10]!, "login_email", 10, 900);
    // the right password does not help once the e-mail is throttled
    const right = await post(sandbox, "/auth/sign_in", { email: sandbox.info.adminEmail, password: sandbox.info.password }, "127.0.2.1");
    expect(right.status).toBe(429);
  });
});

describe("the same run in development", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await sandboxWith({ APP_ENV: "development" });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it("never produces a 429", async () => {
    const statuses = [
      ...(await scenarios.coupon(sandbox)),
      ...(await scenarios.subscribe(sandbox)),
      ...(await scenarios.login(sandbox)),
    ].map((r) => r.status);
    expect(statuses).not.toContain(429);
    expect(statuses.filter((s) => s === 201)).toHaveLength(6);
  });
});
