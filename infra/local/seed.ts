/**
 * Seeds the sandbox: a demo account with an administrator and an agent, each with an API key.
 * Idempotent: a restart with the same data keeps the same account and keys.
 */
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { db, mainTableName } from "../../shared/db/client.ts";
import { keys } from "../../shared/db/keys.ts";
import { addMember, createAccount, createUser, issueKey } from "../../shared/db/accounts-repo.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import { hashPassword } from "../../shared/domain/passwords.ts";

export interface SeedResult {
  readonly accountId: number;
  readonly adminApiKey: string;
  readonly agentApiKey: string;
  readonly adminEmail: string;
  readonly agentEmail: string;
  readonly password: string;
}

export const DEMO_PASSWORD = "conversa-demo-1";

async function keyIsValid(key: string | undefined): Promise<boolean> {
  if (!key) return false;
  const out = await db().send(new GetCommand({ TableName: mainTableName(), Key: keys.apiKeyByHash(sha256Hex(key)) }));
  return Boolean(out.Item);
}

/** Seeds once; with `previous` (the last sandbox.json) whose keys still work, returns it unchanged. */
export async function seedDemo(previous?: Partial<SeedResult>): Promise<SeedResult> {
  if (previous?.accountId && (await keyIsValid(previous.adminApiKey)) && (await keyIsValid(previous.agentApiKey))) {
    return previous as SeedResult;
  }
  const now = Math.floor(Date.now() / 1000);
  const accountId = await createAccount("Acme Demo", now);
  const suffix = accountId === 1 ? "" : `+${accountId}`;
  const adminEmail = `admin${suffix}@example.com`;
  const agentEmail = `agent${suffix}@example.com`;
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const adminId = await createUser({ name: "Ada Admin", email: adminEmail, passwordHash, nowSec: now });
  const agentId = await createUser({ name: "Alan Agent", email: agentEmail, passwordHash, nowSec: now });
  await addMember(accountId, adminId, "administrator", now);
  await addMember(accountId, agentId, "agent", now);
  return {
    accountId,
    adminApiKey: await issueKey(adminId, "sandbox", now),
    agentApiKey: await issueKey(agentId, "sandbox", now),
    adminEmail,
    agentEmail,
    password: DEMO_PASSWORD,
  };
}
