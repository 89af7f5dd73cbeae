/**
 * DynamoDB Local is a child Java process: a sandbox or test process that dies without stop()
 * must not leave it running (it would hold its port and a share of the 2 cores).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
let javaPid: number | undefined;

afterAll(() => {
  if (javaPid && existsSync(`/proc/${javaPid}`)) process.kill(javaPid, "SIGKILL");
});

it.runIf(process.platform === "linux")("a process that crashes takes its DynamoDB Local with it", async () => {
  const run = spawnSync(process.execPath, ["--import", "tsx", "test/support/crash-after-dynamo.ts"], { cwd: root, encoding: "utf8", timeout: 90_000 });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain("crashing on purpose");
  javaPid = Number(run.stdout.trim());
  expect(javaPid).toBeGreaterThan(0);
  // SIGKILL is sent on the way out; the kernel reaps Java shortly after.
  const deadline = Date.now() + 10_000;
  const alive = () => {
    try {
      return !/\) Z /.test(readFileSync(`/proc/${javaPid}/stat`, "utf8")); // a zombie is dead
    } catch {
      return false;
    }
  };
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(alive()).toBe(false);
}, 120_000);
