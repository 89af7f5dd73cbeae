/**
 * `npm start` as a real process, as a user runs it: in its own process group (like a terminal's
 * foreground job, so that one signal reaches npm, node and DynamoDB Local's java), waited for
 * until it prints its banner. Every process it starts is killed by `killAll`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

export interface NpmStart {
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

const started: ChildProcess[] = [];

export async function npmStart(port: number, dataDir: string, env: Record<string, string> = {}, timeoutMs = 90_000): Promise<NpmStart> {
  const child = spawn("npm", ["start", "--silent"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), SANDBOX_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  started.push(child);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + timeoutMs;
  while (!out.includes("Ctrl-C")) {
    if (child.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, output: () => out };
}

/** Is any process of the group still there? */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILL to the group of every `npm start` this process started that is still alive. */
export function killAll(): void {
  for (const c of started) if (c.pid && groupAlive(c.pid)) process.kill(-c.pid, "SIGKILL");
}
