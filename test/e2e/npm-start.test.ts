/**
 * `npm start` itself, as a user runs it: its own DynamoDB Local with data on disk, the printed
 * instructions, .data/sandbox.json, a working curl, Ctrl-C, and a restart that keeps the data.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../infra/local/dynamo.ts";
import { groupAlive, killAll, npmStart } from "../support/npm-start.ts";

const dataDir = mkdtempSync(join(tmpdir(), "conversa-start-"));
const prodDataDir = mkdtempSync(join(tmpdir(), "conversa-start-prod-"));

afterAll(() => {
  killAll();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(prodDataDir, { recursive: true, force: true });
});

const start = (port: number, env: Record<string, string> = {}, dir = dataDir) => npmStart(port, dir, env);


/** Ctrl-C: SIGINT to the whole foreground process group; resolves once every process of it is gone. */
async function stop(child: ChildProcess): Promise<boolean> {
  const pid = child.pid!;
  process.kill(-pid, "SIGINT");
  const deadline = Date.now() + 20_000;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

describe("npm start", () => {
  it("prints how to call it, writes sandbox.json, serves the account, stops on Ctrl-C and keeps data", async () => {
    const port = await freePort();
    const first = await start(port);
    const info = JSON.parse(readFileSync(join(dataDir, "sandbox.json"), "utf8")) as { apiBase: string; accountId: number; adminApiKey: string; agentApiKey: string };
    expect(info).toMatchObject({ apiBase: `http://localhost:${port}`, accountId: expect.any(Number), adminApiKey: expect.stringMatching(/^cv_/), agentApiKey: expect.stringMatching(/^cv_/) });
    expect(first.output()).toContain(`curl -s -H "api_access_token: ${info.adminApiKey}" http://localhost:${port}/api/v1/accounts/${info.accountId}`);

    const res = await fetch(`http://127.0.0.1:${port}/api/v1/accounts/${info.accountId}`, { headers: { api_access_token: info.adminApiKey } });
    expect(res.status).toBe(200);
    expect(await stop(first.child)).toBe(true);
    expect(first.output()).toContain("SIGINT: stopping the sandbox");

    const second = await start(port);
    const again = JSON.parse(readFileSync(join(dataDir, "sandbox.json"), "utf8")) as typeof info;
    expect(again.adminApiKey).toBe(info.adminApiKey);
    const res2 = await fetch(`http://127.0.0.1:${port}/api/v1/accounts/${info.accountId}`, { headers: { api_access_token: info.agentApiKey } });
    expect(res2.status).toBe(200);
    expect(await stop(second.child)).toBe(true);
  }, 240_000);

  it("honours the environment: APP_ENV=production THROTTLE_LIMIT=5 throttles the 6th request of a minute", async () => {
    const LIMIT = 5;
    const port = await freePort();
    // A generous table timeout: on a loaded machine a slow count must not fail open.
    const sandbox = await start(port, { APP_ENV: "production", THROTTLE_LIMIT: String(LIMIT), THROTTLE_TIMEOUT_MS: "15000" }, prodDataDir);
    expect(sandbox.output()).toMatch(/APP_ENV\s+production\s+\(throttling on, 5 requests a minute per IP\)/);
    const info = JSON.parse(readFileSync(join(prodDataDir, "sandbox.json"), "utf8")) as { accountId: number; agentApiKey: string };
    const url = `http://127.0.0.1:${port}/api/v1/accounts/${info.accountId}`;

    // Until the first 429: the fixed window may reset once during the run, never more.
    const t0 = Date.now();
    const replies: Response[] = [];
    while (replies.length <= 2 * LIMIT && replies.at(-1)?.status !== 429) {
      replies.push(await fetch(url, { headers: { api_access_token: info.agentApiKey }, signal: AbortSignal.timeout(20_000) }));
    }
    const windows = Math.floor(Date.now() / 60_000) - Math.floor(t0 / 60_000) + 1;

    const limited = replies.at(-1)!;
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    const passed = replies.slice(0, -1).map((r) => r.status);
    expect(passed).toEqual(Array(passed.length).fill(200));
    expect(passed.length).toBeGreaterThanOrEqual(LIMIT);
    expect(passed.length).toBeLessThanOrEqual(LIMIT * windows);
    expect(await stop(sandbox.child)).toBe(true);
  }, 180_000);
});
