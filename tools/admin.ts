/**
 * Operator commands for the checkout catalog, no code changes needed:
 *
 *   npm run admin -- plans:put <file.json>     create or replace plans
 *   npm run admin -- plans:list                every plan (published or not)
 *   npm run admin -- coupons:put <file.json>   create or update coupons (redemption counts kept)
 *   npm run admin -- coupons:list              every coupon with its redemptions
 *   npm run admin -- search:reindex            give older search postings the fields they index
 *
 * Target: the running sandbox (its DynamoDB Local and table, from <data dir>/sandbox.json; the
 * data dir is SANDBOX_DATA_DIR or `.data`, or `--data-dir <dir>`), or a deployed table with
 * `--table <name> --region <region>` (AWS credentials from the usual chain). `--json` prints lists as JSON.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { resetConfig } from "../shared/config.ts";
import { catalogRepo, listCoupons, putCoupon, putPlan } from "../shared/db/catalog-repo.ts";
import { addPostingTexts, scanContacts } from "../shared/db/contacts-repo.ts";
import { contactPostings } from "../shared/domain/search-index.ts";
import { CatalogFileError, readCouponsFile, readPlansFile } from "../infra/catalog-files.ts";
import { LOCAL_CREDENTIALS } from "../infra/local/dynamo.ts";

export const USAGE = `usage: npm run admin -- <command> [options]

commands:
  plans:put <file.json>     create or replace the plans in the file (one, an array, or {"plans":[...]})
  plans:list                list every plan
  coupons:put <file.json>   create or update the coupons in the file (redemption counts are kept)
  coupons:list              list every coupon
  search:reindex            give search postings written before postings carried the contact's
                            fields those fields (once after upgrading; safe beside live traffic)

options:
  --data-dir <dir>          sandbox data directory (default: $SANDBOX_DATA_DIR or .data)
  --table <name>            a deployed main table instead of the sandbox (with --region)
  --region <region>         its AWS region (default: $AWS_REGION or us-east-1)
  --json                    lists as JSON`;

export class UsageError extends Error {}

interface Options {
  readonly command: string;
  readonly file?: string;
  readonly dataDir: string;
  readonly table?: string;
  readonly region?: string;
  readonly json: boolean;
}

export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Options {
  const rest: string[] = [];
  const opts: { dataDir: string; table?: string; region?: string; json: boolean } = { dataDir: env["SANDBOX_DATA_DIR"] ?? ".data", json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === "--data-dir") opts.dataDir = value();
    else if (a === "--table") opts.table = value();
    else if (a === "--region") opts.region = value();
    else if (a === "--json") opts.json = true;
    else if (a === "--help" || a === "-h") throw new UsageError("");
    else if (a.startsWith("--")) throw new UsageError(`unknown option ${a}`);
    else rest.push(a);
  }
  const [command, file, extra] = rest;
  if (!command) throw new UsageError("");
  if (!["plans:put", "plans:list", "coupons:put", "coupons:list", "search:reindex"].includes(command)) throw new UsageError(`unknown command ${command}`);
  const needsFile = command.endsWith(":put");
  if (needsFile && !file) throw new UsageError(`${command} needs a JSON file`);
  if ((!needsFile && file) || extra) throw new UsageError(`unexpected argument ${extra ?? file}`);
  if (opts.region && !opts.table) throw new UsageError("--region goes with --table");
  return { command, ...(file ? { file } : {}), ...opts };
}

/** Points shared/config at the target table; returns a description of it. */
function target(opts: Options): string {
  if (opts.table) {
    process.env["TABLE_NAME"] = opts.table;
    process.env["AWS_REGION"] = opts.region ?? process.env["AWS_REGION"] ?? "us-east-1";
    delete process.env["DYNAMODB_ENDPOINT"];
    resetConfig();
    return `table ${opts.table} (${process.env["AWS_REGION"]})`;
  }
  const file = join(resolve(opts.dataDir), "sandbox.json");
  if (!existsSync(file)) throw new UsageError(`no sandbox found (${file} is missing): start it with \`npm start\`, or use --table <name> --region <region>`);
  const info = JSON.parse(readFileSync(file, "utf8")) as { dynamoEndpoint?: string; tableName?: string };
  if (!info.dynamoEndpoint || !info.tableName) throw new UsageError(`${file} has no dynamoEndpoint/tableName: restart the sandbox (\`npm start\`) once`);
  Object.assign(process.env, {
    TABLE_NAME: info.tableName,
    DYNAMODB_ENDPOINT: info.dynamoEndpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  });
  resetConfig();
  return `sandbox table ${info.tableName} at ${info.dynamoEndpoint}`;
}

const brl = (cents: number): string => `R$ ${(cents / 100).toFixed(2)}`;

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd()).join("\n");
}

/** Runs one command; everything it prints goes through `print`. */
export async function runAdmin(argv: readonly string[], print: (line: string) => void = console.log): Promise<void> {
  const opts = parseArgs(argv);
  const where = target(opts);
  try {
    switch (opts.command) {
      case "plans:put": {
        const plans = readPlansFile(opts.file!);
        for (const p of plans) await putPlan(p);
        print(`${plans.length} plan(s) written to ${where}: ${plans.map((p) => p.slug).join(", ")}`);
        return;
      }
      case "coupons:put": {
        const coupons = readCouponsFile(opts.file!);
        for (const c of coupons) await putCoupon(c);
        print(`${coupons.length} coupon(s) written to ${where}: ${coupons.map((c) => c.code).join(", ")}`);
        return;
      }
      case "search:reindex": {
        let contacts = 0;
        let written = 0;
        await scanContacts(async (page) => {
          contacts += page.length;
          // 50 contacts at a time: their postings are read in a few BatchGetItem calls.
          for (let i = 0; i < page.length; i += 50) {
            written += await addPostingTexts(page.slice(i, i + 50).map((contact) => ({ contact, postings: contactPostings(contact) })));
          }
        });
        print(`${contacts} contact(s) read in ${where}; ${written} search posting(s) given their fields`);
        return;
      }
      case "plans:list": {
        const plans = (await catalogRepo.listPlans()).sort((a, b) => a.sort_order - b.sort_order || a.slug.localeCompare(b.slug));
        if (opts.json) return print(JSON.stringify(plans, null, 2));
        const head = ["slug", "name", "published", "monthly", "yearly", "inboxes", "+inbox/month", "+inbox/year"];
        print(table([head, ...plans.map((p) => [p.slug, p.name, String(p.published), brl(p.prices.monthly), brl(p.prices.yearly), String(p.included_inboxes), brl(p.additional_inbox_prices.monthly), brl(p.additional_inbox_prices.yearly)])]));
        return;
      }
      case "coupons:list": {
        const coupons = (await listCoupons()).sort((a, b) => a.code.localeCompare(b.code));
        if (opts.json) return print(JSON.stringify(coupons, null, 2));
        const head = ["code", "discount", "duration", "valid_from", "valid_until", "redeemed", "plans", "cycles"];
        print(
          table([
            head,
            ...coupons.map((c) => [
              c.code,
              c.kind === "percent" ? `${c.value}%` : brl(c.value),
              c.duration === "repeating" ? `${c.duration_months} months` : c.duration,
              c.valid_from ?? "-",
              c.valid_until ?? "-",
              `${c.redemptions}/${c.max_redemptions ?? "∞"}`,
              c.plans.join(",") || "all",
              c.cycles.join(",") || "all",
            ]),
          ]),
        );
        return;
      }
    }
  } catch (err) {
    const code = (err as { code?: string; name?: string })?.code ?? (err as { name?: string })?.name;
    if (!opts.table && (code === "ECONNREFUSED" || (err as Error)?.message?.includes("ECONNREFUSED"))) {
      throw new UsageError(`cannot reach the sandbox's DynamoDB Local (${where}): is \`npm start\` running?`);
    }
    throw err;
  }
}

const isScript = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);

if (isScript) {
  process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
  try {
    await runAdmin(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(err.message ? `${err.message}\n\n${USAGE}` : USAGE);
      process.exitCode = 2;
    } else if (err instanceof CatalogFileError) {
      console.error(err.message);
      process.exitCode = 1;
    } else {
      console.error(`admin: ${(err as Error)?.message ?? String(err)}`);
      process.exitCode = 1;
    }
  }
}
