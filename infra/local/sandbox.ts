/**
 * The local sandbox: DynamoDB Local, the tables, the seed and the
 * API gateway emulation, all in one process. `npm start` and the e2e tests use it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Server } from "node:http";
import { mainTable, throttleTable } from "../../shared/db/table.ts";
import { CONFIG_KEYS, configFrom, configure, setConfig, type Config } from "../../shared/config.ts";
import { setClock, type Clock } from "../../shared/clock.ts";
import { ensureTable, localClient, LOCAL_CREDENTIALS, startDynamoLocal, type DynamoLocal } from "./dynamo.ts";
import { seedDemo, type SeedResult } from "./seed.ts";
import { seedCatalog } from "./seed-catalog.ts";
import { startGateway } from "./gateway.ts";
import { createQueues, queueEnv, startPipeline, workerSettings, type Pipeline } from "./pipeline.ts";
import { sandboxCheckoutPageUrl } from "./demo-site.ts";
import { startLocalAws, type LocalAws } from "./fauxqs.ts";

/** Bucket of the sandbox's uploads (fauxqs S3). */
export const SANDBOX_UPLOADS_BUCKET = "conversa-uploads";

type Env = Readonly<Record<string, string | undefined>>;

/** The sandbox's own defaults: a variable set in the environment wins over them, as in AWS. */
export const SANDBOX_DEFAULTS: Readonly<Record<string, string>> = {
  // Webhook receivers in local use live on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE_NETWORK: "true",
  // Tests and benchmarks run sandboxes quietly; `npm start` logs one line per request.
  LOG_LEVEL: "warn",
  // EMF lines are for CloudWatch; locally they would be one stdout line per delivery.
  METRICS_ENABLED: "false",
  // DynamoDB Local answers in tens of milliseconds, and in seconds under a burst on a busy
  // machine (DynamoDB in single digits): counters get the time to count, so that a burst against
  // APP_ENV=production is limited exactly instead of failing open or closed.
  THROTTLE_TIMEOUT_MS: "10000",
};

export interface SandboxOptions {
  /** HTTP port; 0 = a free one. */
  readonly port: number;
  /** Where DynamoDB Local keeps its data and sandbox.json is written; omitted = in memory. */
  readonly dataDir?: string;
  /** Use an already running DynamoDB Local (tests) instead of starting one. */
  readonly dynamoEndpoint?: string;
  /** Table names (tests use unique ones). */
  readonly tableName?: string;
  readonly throttleTableName?: string;
  /**
   * Where the documented variables are read from (APP_ENV, THROTTLE_*, RATE_LIMIT_*, WEBHOOK_*...);
   * they win over the sandbox's defaults. Default: process.env.
   */
  readonly environment?: Env;
  /** Variables that win over everything, the sandbox's endpoints included (tests: APP_ENV=production). */
  readonly env?: Record<string, string>;
  /** The clock requests are handled by (rate-limit windows); default the real one. */
  readonly clock?: Clock;
  /** Where password-recovery mail is written as .eml files; default `<dataDir>/mail` (or a temp dir). */
  readonly mailDir?: string;
}

export interface SandboxInfo extends SeedResult {
  readonly apiBase: string;
  /** Where `npm run admin` finds the sandbox's tables. */
  readonly dynamoEndpoint: string;
  readonly tableName: string;
}

export interface Sandbox {
  readonly info: SandboxInfo;
  /** The configuration the sandbox installed (what its handlers read). */
  readonly config: Config;
  readonly dynamoEndpoint: string;
  /** DynamoDB Local's process when the sandbox started it (benchmarks read its CPU time). */
  readonly dynamoPid: number | undefined;
  /** The directory the sandbox's mail goes to (MAIL_DIR). */
  readonly mailDir: string;
  /** Where operator events (subscriptions, quotes, disabled webhooks) are written, one JSON file each. */
  readonly eventsDir: string;
  /** The event pipeline (fauxqs queues, stream and queue pollers). */
  readonly pipeline: Pipeline;
  stop(): Promise<void>;
}

function readPrevious(file: string): Partial<SeedResult> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Partial<SeedResult>;
  } catch {
    return undefined;
  }
}

/** The configuration variables set in `environment` (empty counts as unset; anything else there is not the service's). */
function documented(environment: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of CONFIG_KEYS) {
    const v = environment[k];
    if (v !== undefined && v !== "") out[k] = v;
  }
  return out;
}

export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const fromEnvironment = documented(opts.environment ?? process.env);
  const requested = { ...SANDBOX_DEFAULTS, ...fromEnvironment, ...opts.env };
  // A bad variable stops the sandbox before anything starts, with one message naming each.
  const settings = workerSettings(configFrom(requested));

  let dynamo: DynamoLocal | undefined;
  const dataDir = opts.dataDir ? resolve(opts.dataDir) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const endpoint =
    opts.dynamoEndpoint ??
    (dynamo = await startDynamoLocal(dataDir ? { dbPath: join(dataDir, "dynamodb") } : {})).endpoint;

  const localAws: LocalAws = await startLocalAws({ buckets: [SANDBOX_UPLOADS_BUCKET] }).catch(async (err: unknown) => {
    await dynamo?.stop();
    throw err;
  });
  const tableName = opts.tableName ?? "conversa-main";
  const throttleTableName = opts.throttleTableName ?? "conversa-throttle";
  // Without a data directory the mail goes to a temp dir, removed on stop.
  const tempMailDir = !opts.mailDir && !dataDir;
  const mailDir = resolve(opts.mailDir ?? (dataDir ? join(dataDir, "mail") : mkdtempSync(join(tmpdir(), "conversa-mail-"))));
  mkdirSync(mailDir, { recursive: true });
  // Operator events: the events directory of the data directory, or a temp dir removed on stop.
  const eventsDir = dataDir ? join(dataDir, "events") : mkdtempSync(join(tmpdir(), "conversa-events-"));
  const queues = createQueues(localAws.server, settings);
  // The AWS SDK's credential chain reads these (in AWS the Lambda runtime sets them); the local engines accept any.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId, AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey });
  const installed = configure({
    ...SANDBOX_DEFAULTS,
    ...fromEnvironment,
    // The sandbox's own stores: its local endpoints, tables, bucket, queues and mail directory.
    AWS_REGION: "us-east-1",
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: tableName,
    THROTTLE_TABLE_NAME: throttleTableName,
    MAIL_DIR: mailDir,
    S3_ENDPOINT: localAws.endpoint,
    UPLOADS_BUCKET: SANDBOX_UPLOADS_BUCKET,
    ...queueEnv(localAws, queues),
    ...opts.env,
  });
  setClock(opts.clock);

  let server: Server | undefined;
  let pipeline: Pipeline | undefined;
  try {
    const client = localClient(endpoint);
    await ensureTable(client, tableName, mainTable);
    await ensureTable(client, throttleTableName, throttleTable);
    client.destroy();

    const stateFile = dataDir ? join(dataDir, "sandbox.json") : undefined;
    const seed = await seedDemo(stateFile ? readPrevious(stateFile) : undefined);
    await seedCatalog(seed.accountId);
    pipeline = await startPipeline({
      dynamoEndpoint: endpoint,
      tableName,
      aws: localAws,
      queues,
      drainMs: (installed.WEBHOOK_TIMEOUT + 5) * 1000,
      positionFile: dataDir ? join(dataDir, "stream-positions.json") : undefined,
      operatorEventsDir: eventsDir,
    });
    const gw = await startGateway(opts.port);
    server = gw.server;
    // The fresh values last: sandbox.json of an earlier run holds the old ones.
    const info: SandboxInfo = { ...seed, apiBase: `http://localhost:${gw.port}`, dynamoEndpoint: endpoint, tableName };
    // The links open the sandbox's own checkout page, and widget snippets load from it, unless told otherwise.
    const config = setConfig({ CHECKOUT_PAGE_URL: sandboxCheckoutPageUrl(info.apiBase, requested), PUBLIC_API_URL: requested["PUBLIC_API_URL"] ?? info.apiBase });
    if (stateFile) writeFileSync(stateFile, `${JSON.stringify(info, null, 2)}\n`);

    const srv = server;
    const pipe = pipeline;
    return {
      info,
      config,
      dynamoEndpoint: endpoint,
      dynamoPid: dynamo?.pid,
      mailDir,
      eventsDir,
      pipeline: pipe,
      async stop() {
        await pipe.stop();
        await new Promise<void>((res) => {
          srv.close(() => res());
          srv.closeAllConnections();
        });
        setClock(undefined);
        await localAws.stop();
        await dynamo?.stop();
        if (tempMailDir) rmSync(mailDir, { recursive: true, force: true });
        if (!dataDir) rmSync(eventsDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    setClock(undefined);
    server?.close();
    await pipeline?.stop();
    await localAws.stop();
    await dynamo?.stop();
    throw err;
  }
}
