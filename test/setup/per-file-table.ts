/**
 * Runs before each test file (in its own process): points config at the run's DynamoDB Local
 * and creates a fresh main + throttle table for this file, so files never share data.
 */
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { mainTable, throttleTable } from "../../shared/db/table.ts";
import { ensureTable, localClient, localEnv } from "../../infra/local/dynamo.ts";

const endpoint = inject("dynamoEndpoint");
const suffix = randomBytes(4).toString("hex");

Object.assign(process.env, { ...localEnv(endpoint, `main-${suffix}`, `throttle-${suffix}`), LOG_LEVEL: "warn" });
resetConfig();

// TTL off: DynamoDB Local's sweeper deletes an expired item within seconds, and tests write
// items dated by injected clocks (a limiter window of 2026-01-01, an outbox event of a report
// week, a checkout token "still held after expiry"), which it would delete under them (the
// likely cause of the limiter test once letting 16 of 8 through: its counter, dated 2026-01-01,
// gone mid-test). The code never relies on TTL deletion (it checks expiresAt itself); the
// sandbox keeps TTL on.
const client = localClient(endpoint);
// Stream off too: no test here reads it (the sandbox's own tables keep theirs, for its stream
// poller). With a stream on each of the run's ~200 tables, DynamoDB Local served the whole run
// at half speed (573 s against 285 s on one machine).
await Promise.all([
  ensureTable(client, `main-${suffix}`, { ...mainTable, stream: false }, { ttl: false }),
  ensureTable(client, `throttle-${suffix}`, throttleTable, { ttl: false }),
]);
client.destroy();
