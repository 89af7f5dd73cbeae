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
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { availableParallelism, cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../infra/build.ts";
import { mainTable, throttleTable } from "../../shared/db/table.ts";

// The AWS SDK warns that its Node 20 support ends in 2027 (the Lambdas run nodejs22.x); set before it loads.
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
const { ensureTable, LOCAL_CREDENTIALS, localClient, startDynamoLocal } = await import("../../infra/local/dynamo.ts");

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 40);
const OUT_FILE = join(ROOT, "docs", "bench", "auth.json");

const dynamo = await startDynamoLocal();
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

const round2 = (ms: number): number => Math.round(ms * 100) / 100;
const quantile = (values: readonly number[], q: number): number => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

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
    return { scenario: s.name, minMs: round2(Math.min(...acc.ms)), medianMs: round2(median(acc.ms)), p90Ms: round2(quantile(acc.ms, 0.9)), scryptPerCall: acc.scrypt / ROUNDS, statuses: acc.statuses };
  });
  const med = (name: string) => rows.find((r) => r.scenario === name)!.medianMs;
  const min = (name: string) => rows.find((r) => r.scenario === name)!.minMs;
  const ratios = {
    "sign_in unknown / wrong password (min)": round2(min("sign_in: unknown e-mail") / min("sign_in: wrong password")),
    "sign_in unknown / wrong password": round2(med("sign_in: unknown e-mail") / med("sign_in: wrong password")),
    "sign_in no-password user / wrong password": round2(med("sign_in: user without password") / med("sign_in: wrong password")),
    "sign_in success / wrong password": round2(med("sign_in: success") / med("sign_in: wrong password")),
    "password request known / unknown": round2(med("password request: known e-mail") / med("password request: unknown e-mail")),
    "password request known / unknown, no floor": round2(med("  same, no floor: known") / med("  same, no floor: unknown")),
    "authenticate with write / read only": round2(med("authenticate: + last_used_at write") / med("authenticate: key read only")),
  };

  const w = Math.max(...rows.map((r) => r.scenario.length));
  const head = `${"scenario".padEnd(w)}  ${"min ms".padStart(7)}  ${"median ms".padStart(9)}  ${"p90 ms".padStart(7)}  ${"scrypt/req".padStart(10)}  statuses`;
  console.log(`auth benchmark: ${ROUNDS} interleaved rounds, in process, DynamoDB Local; node ${process.version}; ${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown"})\n`);
  console.log(head);
  console.log("-".repeat(head.length));
  for (const r of rows) {
    const st = Object.entries(r.statuses).map(([k, v]) => `${k}x${v}`).join(" ");
    console.log(`${r.scenario.padEnd(w)}  ${r.minMs.toFixed(2).padStart(7)}  ${r.medianMs.toFixed(2).padStart(9)}  ${r.p90Ms.toFixed(2).padStart(7)}  ${r.scryptPerCall.toFixed(2).padStart(10)}  ${st}`);
  }
  console.log("\nratios (medians unless marked; same run):");
  for (const [k, v] of Object.entries(ratios)) console.log(`  ${k.padEnd(44)} ${v.toFixed(2)}`);

  await mkdir(join(ROOT, "docs", "bench"), { recursive: true });
  await writeFile(
    OUT_FILE,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), node: process.version, machine: { cores: availableParallelism(), cpu: cpus()[0]?.model ?? "unknown" }, rounds: ROUNDS, rows, ratios }, null, 2)}\n`,
  );
  console.log(`\nwrote ${OUT_FILE.slice(ROOT.length)}`);
} finally {
  await dynamo.stop();
  await rm(mailDir, { recursive: true, force: true });
}
