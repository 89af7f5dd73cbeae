/**
 * The local sandbox (DESIGN.md, Local sandbox): DynamoDB Local, the tables, the seed and the
 * API gateway emulation, all in one process. `npm start` and the e2e tests use it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Server } from "node:http";
import { mainTable, throttleTable } from "../../shared/db/table.ts";
import { resetConfig } from "../../shared/config.ts";
import { resetDb } from "../../shared/db/client.ts";
import { ensureTable, localClient, LOCAL_CREDENTIALS, startDynamoLocal, type DynamoLocal } from "./dynamo.ts";
import { seedDemo, type SeedResult } from "./seed.ts";
import { startGateway } from "./gateway.ts";
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
}

export interface SandboxInfo extends SeedResult {
  readonly apiBase: string;
}

export interface Sandbox {
  readonly info: SandboxInfo;
  readonly dynamoEndpoint: string;
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
  Object.assign(process.env, {
    APP_ENV: "development",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME: tableName,
    THROTTLE_TABLE_NAME: throttleTableName,
    S3_ENDPOINT: localAws.endpoint,
    UPLOADS_BUCKET: SANDBOX_UPLOADS_BUCKET,
    ...opts.env,
  });
  resetConfig();
  resetDb();
  resetS3();

  let server: Server | undefined;
  try {
    const client = localClient(endpoint);
    await ensureTable(client, tableName, mainTable);
    await ensureTable(client, throttleTableName, throttleTable);
    client.destroy();

    const stateFile = dataDir ? join(dataDir, "sandbox.json") : undefined;
    const seed = await seedDemo(stateFile ? readPrevious(stateFile) : undefined);
    const gw = await startGateway(opts.port);
    server = gw.server;
    const info: SandboxInfo = { apiBase: `http://localhost:${gw.port}`, ...seed };
    if (stateFile) writeFileSync(stateFile, `${JSON.stringify(info, null, 2)}\n`);

    const srv = server;
    return {
      info,
      dynamoEndpoint: endpoint,
      async stop() {
        await new Promise<void>((res) => {
          srv.close(() => res());
          srv.closeAllConnections();
        });
        resetDb();
        resetS3();
        await localAws.stop();
        await dynamo?.stop();
      },
    };
  } catch (err) {
    server?.close();
    await localAws.stop();
    await dynamo?.stop();
    throw err;
  }
}
