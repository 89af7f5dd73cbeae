/** Accounts, users, memberships and API keys in the main table. */
import { PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { Account, AccountReader } from "../domain/accounts.ts";
import type { KeyLookup, KeyRecord } from "../domain/auth.ts";
import type { Role } from "../routes.ts";
import { db, mainTableName } from "./client.ts";
import { getItem, nextGlobalId, strip } from "./items.ts";
import { newApiKey } from "../domain/secrets.ts";
import { keys } from "./keys.ts";

export const accountsRepo: AccountReader & KeyLookup = {
  async getAccount(accountId) {
    const item = await getItem(keys.account(accountId), false);
    return item ? strip<Account>(item) : undefined;
  },

  async findKeyByHash(hash) {
    const item = await getItem(keys.apiKeyByHash(hash));
    if (!item || item["revoked"] === true) return undefined;
    return { userId: Number(item["userId"]), keyId: String(item["keyId"]) } satisfies KeyRecord;
  },

  async findRole(accountId, userId) {
    const item = await getItem(keys.member(accountId, userId));
    return item ? (item["role"] as Role) : undefined;
  },
};

export interface MembershipRow {
  readonly accountId: number;
  readonly role: Role;
}

/** The accounts a user belongs to (GSI1 of the membership items). */
export async function listMemberships(userId: number): Promise<MembershipRow[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: mainTableName(),
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :pk AND begins_with(gsi1sk, :p)",
      ExpressionAttributeValues: { ":pk": `USER#${userId}`, ":p": "MEMBER#" },
    }),
  );
  return (out.Items ?? []).map((i) => ({ accountId: Number(i["accountId"]), role: i["role"] as Role }));
}

/** Used by seeding and tests; production creation goes through a transaction (subscribe). */
export async function putRaw(item: Record<string, unknown>): Promise<void> {
  await db().send(new PutCommand({ TableName: mainTableName(), Item: item }));
}

// Direct creation helpers: the sandbox seed and test fixtures use them.

export async function createUser(opts: { name: string; email: string; nowSec: number }): Promise<number> {
  const userId = await nextGlobalId("user");
  await putRaw({ ...keys.user(userId), entity: "user", id: userId, name: opts.name, email: opts.email.toLowerCase(), created_at: opts.nowSec });
  await putRaw({ ...keys.userEmail(opts.email), entity: "user_email", userId });
  return userId;
}

export async function addMember(accountId: number, userId: number, role: Role, nowSec: number): Promise<void> {
  await putRaw({ ...keys.member(accountId, userId), ...keys.memberGsi1(userId, accountId), entity: "member", accountId, userId, role, created_at: nowSec });
}

export async function issueKey(userId: number, name: string, nowSec: number): Promise<string> {
  const { key, hash, prefix } = newApiKey();
  const keyId = hash.slice(0, 16);
  await putRaw({ ...keys.apiKeyByHash(hash), entity: "api_key", userId, keyId });
  await putRaw({ ...keys.userApiKey(userId, keyId), entity: "user_api_key", id: keyId, name, prefix, hash, created_at: nowSec, last_used_at: null });
  return key;
}

export async function createAccount(name: string, nowSec: number): Promise<number> {
  const accountId = await nextGlobalId("account");
  await putRaw({ ...keys.account(accountId), entity: "account", id: accountId, name, locale: "en", status: "active", created_at: nowSec, custom_attributes: {} });
  return accountId;
}
