/**
 * The local sandbox (DESIGN.md, Local sandbox): DynamoDB Local, the tables, the seed and the
 * API gateway emulation, all in one process. `npm start` and the e2e tests use it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Server } from "node:http";
import { mainTable, throttleTable } from "../../shared/db/table.ts";
import { resetConfig } from "../../shared/config.ts";
import { resetDb } from "../../shared/db/client.ts";
import { resetMailer } from "../../shared/mail/mailer.ts";
import { ensureTable, localClient, localEnv, startDynamoLocal, type DynamoLocal } from "./dynamo.ts";
import { seedDemo, type SeedResult } from "./seed.ts";
import { seedCatalog } from "./seed-catalog.ts";
import { startGateway } from "./gateway.ts";
import { sandboxCheckoutPageUrl } from "./demo-site.ts";
import { startPipeline, type Pipeline } from "./pipeline.ts";
import { startLocalAws, type LocalAws } from "./fauxqs.ts";
import { resetS3 } from "../../shared/db/s3.ts";

/** Bucket of the sandbox's uploads (fauxqs S3). */
export const SANDBOX_UPLOADS_BUCKET = "conversa-uploads";

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
  /** Extra environment for the handlers (e.g. APP_ENV=production). */
  readonly env?: Record<string, string>;
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
  readonly dynamoEndpoint: string;
  /** DynamoDB Local's process when the sandbox started it (benchmarks read its CPU time). */
  readonly dynamoPid: number | undefined;
  /** The directory the sandbox's mail goes to (MAIL_DIR). */
  readonly mailDir: string;
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

export async function startSandbox(opts: SandboxOptions): Promise<Sandbox> {
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
  Object.assign(process.env, {
    ...localEnv(endpoint, tableName, throttleTableName),
    MAIL_DIR: mailDir,
    // Webhook receivers in local use live on 127.0.0.1 (issue 3).
    WEBHOOK_ALLOW_PRIVATE_NETWORK: "true",
    // Tests and benchmarks run sandboxes quietly; `npm start` logs one line per request.
    LOG_LEVEL: process.env["LOG_LEVEL"] ?? "warn",
    // EMF lines are for CloudWatch; locally they would be one stdout line per delivery.
    METRICS_ENABLED: process.env["METRICS_ENABLED"] ?? "false",
    S3_ENDPOINT: localAws.endpoint,
    UPLOADS_BUCKET: SANDBOX_UPLOADS_BUCKET,
    ...opts.env,
  });
  resetConfig();
  resetDb();
  resetMailer();
  resetS3();

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
    pipeline = await startPipeline({ dynamoEndpoint: endpoint, tableName, aws: localAws });
    const gw = await startGateway(opts.port);
    server = gw.server;
    // The fresh values last: sandbox.json of an earlier run holds the old ones.
    const info: SandboxInfo = { ...seed, apiBase: `http://localhost:${gw.port}`, dynamoEndpoint: endpoint, tableName };
    // The links open the sandbox's own checkout page unless one was given.
    process.env["CHECKOUT_PAGE_URL"] = sandboxCheckoutPageUrl(info.apiBase, opts.env);
    resetConfig();
    if (stateFile) writeFileSync(stateFile, `${JSON.stringify(info, null, 2)}\n`);

    const srv = server;
    const pipe = pipeline;
    return {
      info,
      dynamoEndpoint: endpoint,
      dynamoPid: dynamo?.pid,
      mailDir,
      pipeline: pipe,
      async stop() {
        await pipe.stop();
        await new Promise<void>((res) => {
          srv.close(() => res());
          srv.closeAllConnections();
        });
        resetDb();
        resetS3();
        await localAws.stop();
        await dynamo?.stop();
        if (tempMailDir) rmSync(mailDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    server?.close();
    await pipeline?.stop();
    await localAws.stop();
    await dynamo?.stop();
    throw err;
  }
}
