/**
 * DynamoDB Local is a child Java process: a sandbox or test process that dies without stop()
 * must not leave it running (it would hold its port and a share of the 2 cores).
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
let javaPid: number | undefined;

/** The pid is a running DynamoDB Local (not gone, not a zombie, not a reused pid). */
function dynamoAlive(pid: number): boolean {
  try {
    const running = !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    return running && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("DynamoDBLocal.jar");
  } catch {
    return false;
  }
}

afterAll(() => {
  if (javaPid && dynamoAlive(javaPid)) process.kill(javaPid, "SIGKILL");
});

it.runIf(process.platform === "linux")("a process that crashes takes its DynamoDB Local with it", async () => {
  const run = spawnSync(process.execPath, ["--import", "tsx", "test/support/crash-after-dynamo.ts"], { cwd: root, encoding: "utf8", timeout: 90_000 });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain("crashing on purpose");
  const pid = Number(run.stdout.trim());
  javaPid = pid;
  expect(pid).toBeGreaterThan(0);
  // SIGTERM is sent on the way out; Java shuts down cleanly shortly after.
  const deadline = Date.now() + 10_000;
  while (dynamoAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(dynamoAlive(pid)).toBe(false);
}, 120_000);

it.runIf(process.platform === "linux")("a process killed outright (SIGKILL to its whole group) takes its DynamoDB Local with it", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/crash-after-dynamo.ts", "wait"], { cwd: root, stdio: ["ignore", "pipe", "ignore"], detached: true });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const ready = Date.now() + 90_000;
  while (!out.includes("\n") && child.exitCode === null && Date.now() < ready) await new Promise((r) => setTimeout(r, 100));
  const pid = Number(out.trim());
  javaPid = pid;
  expect(dynamoAlive(pid)).toBe(true);

  process.kill(-child.pid!, "SIGKILL");

  // Java is in its own group: the watchdog stops it (SIGTERM, SIGKILL after 5 s).
  const deadline = Date.now() + 10_000;
  while (dynamoAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(dynamoAlive(pid)).toBe(false);
}, 120_000);
