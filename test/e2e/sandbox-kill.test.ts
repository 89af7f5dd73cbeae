/**
 * A SIGKILL of `npm start` mid-traffic loses nothing: after a restart on the same data directory
 * every accepted write is there and every one of its events reaches the receiver (duplicates
 * allowed, with the same webhook-id).
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../infra/local/dynamo.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { groupAlive, killAll, npmStart } from "../support/npm-start.ts";

const dataDir = mkdtempSync(join(tmpdir(), "conversa-kill-"));
let receiver: Receiver | undefined;

/** Processes whose command line names the data directory (DynamoDB Local's java does). */
const usingDataDir = (): string[] =>
  spawnSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((l) => l.includes(dataDir) && !l.includes("ps -eo"));

afterAll(async () => {
  killAll();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = async (port: number): Promise<ChildProcess> => (await npmStart(port, dataDir, { LOG_LEVEL: "warn" }, 60_000)).child;

async function killGroup(child: ChildProcess): Promise<void> {
  const pid = child.pid!;
  process.kill(-pid, "SIGKILL");
  const deadline = Date.now() + 10_000;
  while ((groupAlive(pid) || usingDataDir().length > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

describe("npm start killed mid-traffic", () => {
  it("keeps the accepted writes and delivers every event of each after a restart", { timeout: 90_000 }, async () => {
    receiver = await startReceiver();
    const port = await freePort();
    const first = await start(port);
    const info = JSON.parse(readFileSync(join(dataDir, "sandbox.json"), "utf8")) as { accountId: number; adminApiKey: string };
    const base = `http://127.0.0.1:${port}/api/v1/accounts/${info.accountId}`;
    const headers = { "content-type": "application/json", api_access_token: info.adminApiKey };
    const hook = await fetch(`${base}/webhooks`, { method: "POST", headers, body: JSON.stringify({ url: receiver.url, subscriptions: ["contact_created"] }) });
    expect(hook.status).toBe(200);

    // Thirty writes, a few at a time; the kill lands while they are under way.
    const accepted: number[] = [];
    const send = async (i: number) => {
      try {
        const res = await fetch(`${base}/contacts`, { method: "POST", headers, body: JSON.stringify({ name: `Kill ${i}` }), signal: AbortSignal.timeout(10_000) });
        if (res.ok) accepted.push(((await res.json()) as { payload: { contact: { id: number } } }).payload.contact.id);
      } catch {
        // Cut off by the kill: not accepted.
      }
    };
    const traffic = (async () => {
      for (let i = 0; i < 30; i += 3) await Promise.all([send(i), send(i + 1), send(i + 2)]);
    })();
    const killAt = Date.now() + 8_000;
    while (accepted.length < 10 && Date.now() < killAt) await new Promise((r) => setTimeout(r, 50));
    await killGroup(first);
    await traffic;

    expect(groupAlive(first.pid!)).toBe(false);
    expect(usingDataDir()).toEqual([]);
    expect(accepted.length).toBeGreaterThan(0);

    const second = await start(port);
    const shown = await Promise.all(accepted.map(async (id) => ({ id, status: (await fetch(`${base}/contacts/${id}`, { headers })).status })));
    expect(shown.filter((s) => s.status !== 200)).toEqual([]);
    const delivered = (r: { json: Record<string, unknown> }) => accepted.includes(Number(r.json["id"]));
    const seen = new Set<number>();
    const deadline = Date.now() + 30_000;
    while (seen.size < accepted.length && Date.now() < deadline) {
      for (const r of receiver.received.filter(delivered)) seen.add(Number(r.json["id"]));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect([...seen].sort((x, y) => x - y)).toEqual([...accepted].sort((x, y) => x - y));
    // A repeated delivery carries the same webhook-id as the first.
    const idsByContact = new Map<number, Set<string>>();
    for (const r of receiver.received.filter(delivered)) {
      const set = idsByContact.get(Number(r.json["id"])) ?? new Set<string>();
      set.add(String(r.headers["webhook-id"]));
      idsByContact.set(Number(r.json["id"]), set);
    }
    expect([...idsByContact.values()].map((s) => s.size)).toEqual(accepted.map(() => 1));
    // The stream poller keeps its position (per shard) in the data directory.
    expect(Object.keys(JSON.parse(readFileSync(join(dataDir, "stream-positions.json"), "utf8")) as object).length).toBeGreaterThan(0);
    await killGroup(second);
  });
});
