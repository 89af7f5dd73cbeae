/** Accounts, users, memberships and API keys in the main table. */
import { PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Account, AccountReader } from "../domain/accounts.ts";
import type { KeyLookup, KeyRecord } from "../domain/auth.ts";
import type { Role } from "../domain/identity.ts";
import { db, isConditionalFailure, mainTableName, throttleTableName } from "./client.ts";
import { getItem, nextGlobalId, strip } from "./items.ts";
import { newApiKey } from "../domain/secrets.ts";
import { keys } from "./keys.ts";
import { batchGet } from "./query.ts";

/** A key unused for this long shows `last_used_at: null` again. */
export const KEY_USE_TTL_SECONDS = 400 * 24 * 3600;

export const accountsRepo: AccountReader & KeyLookup = {
  async getAccount(accountId) {
    const item = await getItem(keys.account(accountId), false);
    return item ? strip<Account>(item) : undefined;
  },

  async findKeyByHash(hash) {
    return keyRecord(await getItem(keys.apiKeyByHash(hash)));
  },

  /** The key item and the membership in one strongly consistent BatchGetItem. */
  async findKeyAndRole(hash, accountId, userId) {
    const keyKey = keys.apiKeyByHash(hash);
    const items = await batchGet([keyKey, keys.member(accountId, userId)], true);
    const keyItem = items.find((i) => i["pk"] === keyKey.pk && i["sk"] === keyKey.sk);
    const member = items.find((i) => i !== keyItem);
    return { key: keyRecord(keyItem), role: member ? (member["role"] as Role) : undefined };
  },

  /**
   * `last_used_at` lives in the throttle table, which every function may write (read-only
   * routes may not write the main table). Its own TTL; never touches the key's items.
   */
  async touchKey(key, nowSec) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: throttleTableName(),
          Key: keys.apiKeyUse(key.keyId),
          UpdateExpression: "SET lastUsedAt = :now, userId = :u, expiresAt = :exp",
          // Another container may have recorded a later use: never move it back.
          ConditionExpression: "attribute_not_exists(lastUsedAt) OR lastUsedAt < :now",
          ExpressionAttributeValues: { ":now": nowSec, ":u": key.userId, ":exp": nowSec + KEY_USE_TTL_SECONDS },
        }),
      );
    } catch (err) {
      if (!isConditionalFailure(err)) throw err;
    }
  },

  async findRole(accountId, userId) {
    const item = await getItem(keys.member(accountId, userId));
    return item ? (item["role"] as Role) : undefined;
  },
};

function keyRecord(item: Record<string, unknown> | undefined): KeyRecord | undefined {
  if (!item || item["revoked"] === true) return undefined;
  return { userId: Number(item["userId"]), keyId: String(item["keyId"]) };
}

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

// Item builders: one place that knows the shape of accounts, users, memberships and keys.
// Use cases put them in their own transactions (subscribe, sign-in); the helpers below write them
// directly for the sandbox seed and test fixtures.

type Item = Record<string, unknown>;

export function accountItem(accountId: number, name: string, nowSec: number, locale = "en"): Item {
  return { ...keys.account(accountId), entity: "account", id: accountId, name, locale, status: "active", created_at: nowSec, custom_attributes: {} };
}

/** The user item and its e-mail uniqueness marker (put the marker with `attribute_not_exists(pk)`). */
export function userItems(userId: number, opts: { name: string; email: string; passwordHash?: string; nowSec: number }): { user: Item; emailMarker: Item } {
  const email = opts.email.trim().toLowerCase();
  return {
    user: { ...keys.user(userId), entity: "user", id: userId, name: opts.name, email, ...(opts.passwordHash ? { passwordHash: opts.passwordHash } : {}), created_at: opts.nowSec },
    emailMarker: { ...keys.userEmail(email), entity: "user_email", userId },
  };
}

export function memberItem(accountId: number, userId: number, role: Role, nowSec: number): Item {
  return { ...keys.member(accountId, userId), ...keys.memberGsi1(userId, accountId), entity: "member", accountId, userId, role, created_at: nowSec };
}

/**
 * A new API key: the secret (shown once) and its two items (auth lookup by hash, the user's list).
 * `secret`: a key made beforehand (subscribe seals its reply before the transaction).
 */
export function apiKeyItems(
  userId: number,
  name: string,
  nowSec: number,
  secret: { key: string; hash: string; prefix: string } = newApiKey(userId),
): { key: string; keyId: string; prefix: string; items: [Item, Item] } {
  const { key, hash, prefix } = secret;
  const keyId = hash.slice(0, 16);
  return {
    key,
    keyId,
    prefix,
    items: [
      { ...keys.apiKeyByHash(hash), entity: "api_key", userId, keyId, created_at: nowSec },
      { ...keys.userApiKey(userId, keyId), entity: "user_api_key", id: keyId, name, prefix, hash, created_at: nowSec, last_used_at: null },
    ],
  };
}

export async function createUser(opts: { name: string; email: string; passwordHash?: string; nowSec: number }): Promise<number> {
  const userId = await nextGlobalId("user");
  const { user, emailMarker } = userItems(userId, opts);
  await putRaw(user);
  await putRaw(emailMarker);
  return userId;
}

export async function addMember(accountId: number, userId: number, role: Role, nowSec: number): Promise<void> {
  await putRaw(memberItem(accountId, userId, role, nowSec));
}

export async function issueKey(userId: number, name: string, nowSec: number): Promise<string> {
  const { key, items } = apiKeyItems(userId, name, nowSec);
  for (const item of items) await putRaw(item);
  return key;
}

export async function createAccount(name: string, nowSec: number): Promise<number> {
  const accountId = await nextGlobalId("account");
  await putRaw(accountItem(accountId, name, nowSec));
  return accountId;
}
