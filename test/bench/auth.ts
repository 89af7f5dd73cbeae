/**
 * Authentication benchmark (`npm run bench:auth`), in process against a fresh DynamoDB Local:
 *
 * - POST /auth/sign_in through the real handler: success, wrong password, unknown e-mail, a user
 *   without a password. The point is the ratio unknown / wrong-password (should be ~1: one scrypt
 *   verification and two reads either way) and the scrypt calls per request (always 1).
 * - POST /auth/password, known vs unknown e-mail, through the handler (with the reply floor,
 *   PASSWORD_RESET_MIN_REPLY_MS) and through the use case without it (the known path also writes
 *   a token and a mail file: what the floor hides).
 * - authenticate(): the key read alone vs the key read plus the `last_used_at` write (what one
 *   request per key per minute pays).
 *
 * Rounds are interleaved (every scenario once per round) so drift hits all alike. Prints a table
 * and writes docs/bench/auth.json. Ratios within one run only; nothing is asserted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withDynamoLocal } from "./lib/sandbox.ts";
import { ensureTable, LOCAL_CREDENTIALS, localClient, type DynamoLocal } from "../../infra/local/dynamo.ts";
import { mainTable, throttleTable } from "../../shared/db/table.ts";
import { cores, cpuModel, writeResult } from "./lib/output.ts";
import { median, quantileFloor, ratio, round } from "./lib/stats.ts";
import { formatTable } from "./lib/table.ts";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 40);

interface Scenario {
  readonly name: string;
  readonly run: (round: number) => Promise<number>;
}

interface Row {
  readonly scenario: string;
  readonly minMs: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly scryptPerCall: number;
  readonly statuses: Record<string, number>;
}

async function run(dynamo: DynamoLocal): Promise<void> {
  const mailDir = await mkdtemp(join(tmpdir(), "conversa-bench-mail-"));
  Object.assign(process.env, {
    APP_ENV: "development",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    TABLE_NAME: "bench-main",
    THROTTLE_TABLE_NAME: "bench-throttle",
    MAIL_DIR: mailDir,
  });

  // Imported after the environment is set (config is parsed on first use).
  const { invoke } = await import("../support/api.ts");
  const { makeUser } = await import("../support/users.ts");
  const { makeAccount } = await import("../support/fixtures.ts");
  const { hashingStats } = await import("../../shared/domain/passwords.ts");
  const { authenticate } = await import("../../shared/domain/auth.ts");
  const { accountsRepo } = await import("../../shared/db/accounts-repo.ts");
  const { credentialsRepo } = await import("../../shared/db/credentials-repo.ts");
  const { requestPasswordReset } = await import("../../shared/domain/password-reset.ts");
  const { mailer } = await import("../../shared/mail/mailer.ts");

  try {
    const client = localClient(dynamo.endpoint);
    await ensureTable(client, "bench-main", mainTable);
    await ensureTable(client, "bench-throttle", throttleTable);
    client.destroy();

    const user = await makeUser({ password: "bench password 1" });
    const apiOnly = await makeAccount("API only");
    const key = (await invoke("auth.sign_in", { body: { email: user.email, password: user.password } })).json.data.access_token as string;
    const base = Date.now();

    const status = (s: number) => s;
    // The use case without the reply floor: what the floor hides.
    const noFloor = { store: credentialsRepo, mailer: mailer(), resetUrl: "https://app.example.com/auth/password/edit" };
    const scenarios: Scenario[] = [
      { name: "sign_in: success", run: async () => status((await invoke("auth.sign_in", { body: { email: user.email, password: user.password } })).status) },
      { name: "sign_in: wrong password", run: async () => status((await invoke("auth.sign_in", { body: { email: user.email, password: "wrong password" } })).status) },
      { name: "sign_in: unknown e-mail", run: async (i) => status((await invoke("auth.sign_in", { body: { email: `ghost-${i}@example.com`, password: "wrong password" } })).status) },
      { name: "sign_in: user without password", run: async () => status((await invoke("auth.sign_in", { body: { email: apiOnly.adminEmail, password: "wrong password" } })).status) },
      { name: "password request: known e-mail", run: async () => status((await invoke("auth.password_request", { body: { email: user.email } })).status) },
      { name: "password request: unknown e-mail", run: async (i) => status((await invoke("auth.password_request", { body: { email: `ghost-${i}@example.com` } })).status) },
      { name: "  same, no floor: known", run: async () => (await requestPasswordReset(noFloor, user.email, new Date()), 200) },
      { name: "  same, no floor: unknown", run: async (i) => (await requestPasswordReset(noFloor, `ghost-${i}@example.com`, new Date()), 200) },
      {
        name: "authenticate: key read only",
        run: async () => {
          await authenticate(accountsRepo, key, undefined, new Date(base));
          return 200;
        },
      },
      {
        name: "authenticate: + last_used_at write",
        // A minute later every round: the write is due each time.
        run: async (i) => {
          await authenticate(accountsRepo, key, undefined, new Date(base + (i + 1) * 61_000));
          return 200;
        },
      },
    ];

    // Warm-up: module imports, SDK connections, JIT.
    for (const s of scenarios) await s.run(-1);

    const samples = new Map<string, { ms: number[]; scrypt: number; statuses: Record<string, number> }>(
      scenarios.map((s) => [s.name, { ms: [], scrypt: 0, statuses: {} }]),
    );
    for (let i = 0; i < ROUNDS; i++) {
      for (const s of scenarios) {
        const acc = samples.get(s.name)!;
        const before = hashingStats.calls;
        const t0 = performance.now();
        const code = await s.run(i);
        acc.ms.push(performance.now() - t0);
        acc.scrypt += hashingStats.calls - before;
        acc.statuses[code] = (acc.statuses[code] ?? 0) + 1;
      }
    }

    const rows: Row[] = scenarios.map((s) => {
      const acc = samples.get(s.name)!;
      return { scenario: s.name, minMs: round(Math.min(...acc.ms), 2), medianMs: round(median(acc.ms), 2), p90Ms: round(quantileFloor(acc.ms, 0.9), 2), scryptPerCall: acc.scrypt / ROUNDS, statuses: acc.statuses };
    });
    const med = (name: string) => rows.find((r) => r.scenario === name)!.medianMs;
    const min = (name: string) => rows.find((r) => r.scenario === name)!.minMs;
    const ratios = {
      "sign_in unknown / wrong password (min)": ratio(min("sign_in: unknown e-mail"), min("sign_in: wrong password")),
      "sign_in unknown / wrong password": ratio(med("sign_in: unknown e-mail"), med("sign_in: wrong password")),
      "sign_in no-password user / wrong password": ratio(med("sign_in: user without password"), med("sign_in: wrong password")),
      "sign_in success / wrong password": ratio(med("sign_in: success"), med("sign_in: wrong password")),
      "password request known / unknown": ratio(med("password request: known e-mail"), med("password request: unknown e-mail")),
      "password request known / unknown, no floor": ratio(med("  same, no floor: known"), med("  same, no floor: unknown")),
      "authenticate with write / read only": ratio(med("authenticate: + last_used_at write"), med("authenticate: key read only")),
    };

    console.log(`auth benchmark: ${ROUNDS} interleaved rounds, in process, DynamoDB Local; node ${process.version}; ${cores()} cores (${cpuModel()})\n`);
    console.log(
      formatTable(
        [
          "scenario",
          { header: "min ms", align: "right", minWidth: 7 },
          { header: "median ms", align: "right", minWidth: 9 },
          { header: "p90 ms", align: "right", minWidth: 7 },
          { header: "scrypt/req", align: "right", minWidth: 10 },
          "statuses",
        ],
        rows.map((r) => [
          r.scenario,
          r.minMs.toFixed(2),
          r.medianMs.toFixed(2),
          r.p90Ms.toFixed(2),
          r.scryptPerCall.toFixed(2),
          Object.entries(r.statuses)
            .map(([k, v]) => `${k}x${v}`)
            .join(" "),
        ]),
        { rule: "line", trimEnd: true },
      ),
    );
    console.log("\nratios (medians unless marked; same run):");
    for (const [k, v] of Object.entries(ratios)) console.log(`  ${k.padEnd(44)} ${v.toFixed(2)}`);

    console.log("");
    await writeResult("auth", { generatedAt: new Date().toISOString(), node: process.version, machine: { cores: cores(), cpu: cpuModel() }, rounds: ROUNDS, rows, ratios });
  } finally {
    await rm(mailDir, { recursive: true, force: true });
  }
}

await withDynamoLocal(run);
