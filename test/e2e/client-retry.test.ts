/**
 * The client's retries against a production-mode sandbox (APP_ENV=production, THROTTLE_LIMIT=2 per
 * IP and minute). The sleep is injected: the waits the client chose are asserted, never slept; the
 * sleep moves the sandbox's clock instead, so the next attempt lands where the wait would have.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { createClient, type ConversaClient, type RetryEvent, type RetryOptions } from "../../client/src/index.ts";

const LIMIT = 2;

/** Milliseconds the sandbox's clock is ahead of the real one. */
let shift = 0;
const clock = () => Date.now() + shift;

/** Moves the clock to one second into a minute no test has used yet: a fresh rate-limit window. */
function freshWindow(): void {
  const target = (Math.floor(clock() / 60_000) + 1) * 60_000 + 1000;
  shift += target - clock();
}

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox("e2e-clr", {
    env: { APP_ENV: "production", THROTTLE_LIMIT: String(LIMIT), THROTTLE_TIMEOUT_MS: "15000" },
    clock,
  });
});

afterAll(async () => {
  await sandbox?.stop();
});

const baseUrl = () => sandbox.info.apiBase.replace("localhost", "127.0.0.1");

/** A client whose replies are recorded (status and Retry-After) and whose retry options are the test's. */
function recordingClient(retry: RetryOptions, fetchImpl: typeof fetch = fetch) {
  const replies: { status: number; retryAfter: string | null }[] = [];
  const retries: RetryEvent[] = [];
  const client: ConversaClient = createClient({
    baseUrl: baseUrl(),
    apiKey: sandbox.info.agentApiKey,
    accountId: sandbox.info.accountId,
    fetch: async (input, init) => {
      const res = await fetchImpl(input, init);
      replies.push({ status: res.status, retryAfter: res.headers.get("retry-after") });
      return res;
    },
    retry: { ...retry, onRetry: (e) => retries.push(e) },
  });
  return { client, replies, retries };
}

/** Spends the window's quota with plain requests. */
async function spendQuota(): Promise<void> {
  for (let i = 0; i < LIMIT; i++) {
    const res = await fetch(`${baseUrl()}/api/v1/accounts/${sandbox.info.accountId}`, { headers: { api_access_token: sandbox.info.agentApiKey } });
    expect(res.status).toBe(200);
  }
}

describe("the client on a 429", () => {
  it("waits what Retry-After says, then the retry succeeds", async () => {
    // Arrange
    freshWindow();
    await spendQuota();
    const waits: number[] = [];
    const { client, replies, retries } = recordingClient({
      sleep: async (ms) => {
        waits.push(ms);
        shift += ms;
      },
    });
    // Act
    const account = await client.call("accounts.show");
    // Assert
    expect(account.id).toBe(sandbox.info.accountId);
    expect(replies.map((r) => r.status)).toEqual([429, 200]);
    const retryAfter = Number(replies[0]!.retryAfter);
    expect(retryAfter).toBeGreaterThan(50);
    expect(waits).toEqual([retryAfter * 1000]);
    expect(retries).toEqual([{ operation: "accounts.show", attempt: 1, delayMs: retryAfter * 1000, status: 429, error: undefined, retryAfter: true }]);
  });

  it("caps a long Retry-After, and after 5 attempts throws the 429 as a ConversaError", async () => {
    // Arrange
    freshWindow();
    await spendQuota();
    const waits: number[] = [];
    const { client, replies } = recordingClient({ maxRetryAfterMs: 5000, sleep: async (ms) => void waits.push(ms) });
    // Act
    const call = client.call("accounts.show");
    // Assert
    const err = await call.then(() => undefined, (e: unknown) => e);
    // The waits are capped; the error says what the server asked.
    expect(err).toMatchObject({ name: "ConversaError", status: 429, code: "rate_limited" });
    expect(Number(replies.at(-1)?.retryAfter)).toBeGreaterThan(5);
    expect((err as { retryAfterMs: number }).retryAfterMs).toBe(Number(replies.at(-1)?.retryAfter) * 1000);
    expect(replies.map((r) => r.status)).toEqual([429, 429, 429, 429, 429]);
    expect(waits).toEqual([5000, 5000, 5000, 5000]);
  });

  it("does not wait past its total deadline: the 429 is thrown at once", async () => {
    // Arrange
    freshWindow();
    await spendQuota();
    const waits: number[] = [];
    const { client, replies } = recordingClient({ deadlineMs: 10_000, sleep: async (ms) => void waits.push(ms) });
    // Act
    const call = client.call("accounts.show");
    // Assert
    await expect(call).rejects.toMatchObject({ status: 429, code: "rate_limited" });
    expect(replies).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("stops waiting when its AbortSignal fires", async () => {
    // Arrange
    freshWindow();
    await spendQuota();
    const { client } = recordingClient({});
    const controller = new AbortController();
    const started = Date.now();
    // Act
    const call = client.call("accounts.show", { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    // Assert
    await expect(call).rejects.toMatchObject({ status: 0, code: "aborted" });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("the client on a 503 or 409 that says when to retry", () => {
  it("repeats even a POST: such a reply did nothing (a fail-closed rule, a lost race)", async () => {
    // Arrange: the first two attempts get the replies the API gives then; the third reaches the sandbox.
    freshWindow();
    const canned = [
      new Response(JSON.stringify({ error: "Service unavailable", code: "unavailable" }), { status: 503, headers: { "retry-after": "1" } }),
      new Response(JSON.stringify({ error: "Conflict", code: "stale" }), { status: 409, headers: { "retry-after": "1" } }),
    ];
    const waits: number[] = [];
    const { client, replies } = recordingClient({ sleep: async (ms) => void waits.push(ms) }, async (input, init) => canned.shift() ?? fetch(input, init));
    // Act
    const created = await client.call("contacts.create", { body: { name: "Retried Rita" } });
    // Assert: one contact, after two waits of the server's second.
    expect(replies.map((r) => r.status)).toEqual([503, 409, 200]);
    expect(waits).toEqual([1000, 1000]);
    expect(created.payload.contact.name).toBe("Retried Rita");
  });

  it("does not repeat a password reset after a 500: its token may already be spent", async () => {
    freshWindow();
    const { client, replies } = recordingClient({ sleep: async () => undefined }, async () => new Response(JSON.stringify({ error: "Internal server error" }), { status: 500 }));
    await expect(client.call("auth.password_reset", { body: { reset_password_token: "t", password: "a-new-password-1", password_confirmation: "a-new-password-1" } })).rejects.toMatchObject({ status: 500 });
    expect(replies).toHaveLength(1);
  });
});

describe("the client on network errors", () => {
  it("retries a GET with a widening interval (1, 2, 4, 8 s plus jitter)", async () => {
    // Arrange: the first four attempts never reach the server.
    freshWindow();
    let attempts = 0;
    const flaky: typeof fetch = async (input, init) => {
      attempts++;
      if (attempts < 5) throw new TypeError("fetch failed: connection reset");
      return fetch(input, init);
    };
    const waits: number[] = [];
    const client = createClient({
      baseUrl: baseUrl(),
      apiKey: sandbox.info.agentApiKey,
      accountId: sandbox.info.accountId,
      fetch: flaky,
      retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5, jitter: 0.2 },
    });
    // Act
    const inboxes = await client.call("inboxes.list");
    // Assert
    expect(Array.isArray(inboxes.payload)).toBe(true);
    expect(waits).toEqual([1100, 2200, 4400, 8800]);
  });
});
