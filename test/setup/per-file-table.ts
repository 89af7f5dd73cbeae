/**
 * Runs before each test file (in its own process): points config at the run's DynamoDB Local
 * and creates a fresh main + throttle table for this file, so files never share data.
 */
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { resetDb } from "../../shared/db/client.ts";
import { mainTable, throttleTable } from "../../shared/db/table.ts";
import { ensureTable, localClient, localEnv } from "../../infra/local/dynamo.ts";

const endpoint = inject("dynamoEndpoint");
const suffix = randomBytes(4).toString("hex");

Object.assign(process.env, { ...localEnv(endpoint, `main-${suffix}`, `throttle-${suffix}`), LOG_LEVEL: "warn" });
resetConfig();
resetDb();

const client = localClient(endpoint);
await ensureTable(client, `main-${suffix}`, mainTable);
await ensureTable(client, `throttle-${suffix}`, throttleTable);
client.destroy();
