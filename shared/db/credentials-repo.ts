/**
 * Users' credentials in the main table: login lookups, session and API keys (both items of each:
 * the auth lookup by hash and the user's listing item), password-reset tokens.
 */
import { BatchGetCommand, PutCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { AccessToken, AccessTokenStore } from "../domain/access-tokens.ts";
import type { ResetStore, ResetTokenRecord } from "../domain/password-reset.ts";
import type { AccountMembership, CredentialUser, IssuedKey, SignInStore } from "../domain/sign-in.ts";
import { apiKeyItems, listMemberships } from "./accounts-repo.ts";
import { cancelledOnCondition, db, mainTableName, throttleTableName } from "./client.ts";
import { getItem, type TransactItem } from "./items.ts";
import { keys } from "./keys.ts";
import { queryPrefix } from "./query.ts";

type Item = Record<string, unknown>;

/** DynamoDB limits: 100 items per TransactWriteItems and per BatchGetItem. */
const MAX_TRANSACT_ITEMS = 100;
const MAX_BATCH_GET = 100;

const chunk = <T>(list: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, i * size + size));

function toUser(item: Item): CredentialUser {
  return {
    id: Number(item["id"]),
    name: String(item["name"] ?? ""),
    email: String(item["email"] ?? ""),
    passwordHash: typeof item["passwordHash"] === "string" ? item["passwordHash"] : undefined,
    pwVersion: typeof item["pwVersion"] === "number" ? item["pwVersion"] : 0,
  };
}

/** Condition "the user's pwVersion is still `v`" (users never reset have no attribute). */
function pwVersionIs(v: number) {
  return v === 0
    ? { ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(pwVersion) OR pwVersion = :v)", ExpressionAttributeValues: { ":v": 0 } }
    : { ConditionExpression: "attribute_exists(pk) AND pwVersion = :v", ExpressionAttributeValues: { ":v": v } };
}


/** BatchGet with the retry of unprocessed keys DynamoDB asks for. */
async function batchGet(table: string, keyList: readonly Item[]): Promise<Item[]> {
  const found: Item[] = [];
  for (const part of chunk(keyList, MAX_BATCH_GET)) {
    let pending: Item[] | undefined = part;
    for (let attempt = 0; pending?.length && attempt < 5; attempt++) {
      const out = await db().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: pending } } }));
      found.push(...(out.Responses?.[table] ?? []));
      pending = out.UnprocessedKeys?.[table]?.Keys as Item[] | undefined;
    }
  }
  return found;
}

async function putKey(userId: number, name: string, nowSec: number, extra: TransactItem[] = []): Promise<IssuedKey> {
  const { key, keyId, prefix, items } = apiKeyItems(userId, name, nowSec);
  const table = mainTableName();
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        ...items.map((Item) => ({ Put: { TableName: table, Item, ConditionExpression: "attribute_not_exists(pk)" } })),
        ...extra,
      ],
    }),
  );
  return { id: keyId, name, prefix, created_at: nowSec, access_token: key };
}

async function findUserByEmail(email: string): Promise<CredentialUser | undefined> {
  const marker = await getItem(keys.userEmail(email));
  // The same two reads whether the e-mail exists or not (there is no user 0).
  const user = await getItem(keys.user(marker ? Number(marker["userId"]) : 0));
  return marker && user ? toUser(user) : undefined;
}

/** The listing items of a user's keys (they hold the hash, so both items can be deleted). */
const userKeyItems = (userId: number) => {
  const k = keys.userApiKeyPrefix(userId);
  return queryPrefix(k.pk, k.skPrefix, { consistent: true });
};

async function deleteKeys(userId: number, listing: readonly Item[]): Promise<void> {
  const table = mainTableName();
  // Two deletes per key; deleting an item already gone is not an error (a concurrent revoke).
  for (const part of chunk(listing, MAX_TRANSACT_ITEMS / 2)) {
    await db().send(
      new TransactWriteCommand({
        TransactItems: part.flatMap((k) => [
          { Delete: { TableName: table, Key: keys.apiKeyByHash(String(k["hash"])) } },
          { Delete: { TableName: table, Key: keys.userApiKey(userId, String(k["id"])) } },
        ]),
      }),
    );
  }
}

export const credentialsRepo: SignInStore & ResetStore & AccessTokenStore = {
  findUserByEmail,

  async getUser(userId) {
    const item = await getItem(keys.user(userId));
    return item ? toUser(item) : undefined;
  },

  async accountsOf(userId): Promise<AccountMembership[]> {
    const memberships = (await listMemberships(userId)).sort((a, b) => a.accountId - b.accountId);
    const accounts = await batchGet(mainTableName(), memberships.map((m) => keys.account(m.accountId)));
    const names = new Map(accounts.map((a) => [Number(a["id"]), String(a["name"])]));
    return memberships.filter((m) => names.has(m.accountId)).map((m) => ({ id: m.accountId, name: names.get(m.accountId)!, role: m.role }));
  },

  async issueKey(user, name, nowSec) {
    const check: TransactItem = { ConditionCheck: { TableName: mainTableName(), Key: keys.user(user.id), ...pwVersionIs(user.pwVersion) } };
    try {
      return await putKey(user.id, name, nowSec, [check]);
    } catch (err) {
      if (cancelledOnCondition(err)) return undefined;
      throw err;
    }
  },

  createKey: (userId, name, nowSec) => putKey(userId, name, nowSec),

  async listKeys(userId, nowSec): Promise<AccessToken[]> {
    const listing = await userKeyItems(userId);
    const uses = await batchGet(throttleTableName(), listing.map((k) => keys.apiKeyUse(String(k["id"]))));
    // The use items carry a TTL: an expired one that DynamoDB has not removed yet does not count.
    const lastUse = new Map(uses.filter((u) => Number(u["expiresAt"]) > nowSec).map((u) => [String(u["pk"]), Number(u["lastUsedAt"])]));
    return listing.map((k) => ({
      id: String(k["id"]),
      name: String(k["name"]),
      prefix: String(k["prefix"]),
      created_at: Number(k["created_at"]),
      last_used_at: lastUse.get(keys.apiKeyUse(String(k["id"])).pk) ?? null,
    }));
  },

  async revokeKey(userId, keyId) {
    const item = await getItem(keys.userApiKey(userId, keyId));
    if (!item) return false;
    await deleteKeys(userId, [item]);
    return true;
  },

  async revokeAllKeys(userId) {
    const listing = await userKeyItems(userId);
    await deleteKeys(userId, listing);
    return listing.length;
  },

  async saveResetToken(hash, record: ResetTokenRecord) {
    await db().send(
      new PutCommand({
        TableName: mainTableName(),
        Item: { ...keys.passwordReset(hash), entity: "password_reset", ...record },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
  },

  async findResetToken(hash) {
    const item = await getItem(keys.passwordReset(hash));
    if (!item) return undefined;
    return {
      userId: Number(item["userId"]),
      pwVersion: Number(item["pwVersion"] ?? 0),
      createdAt: Number(item["createdAt"]),
      expiresAt: Number(item["expiresAt"]),
    };
  },

  async commitReset({ userId, tokenHash, fromVersion, passwordHash, nowSec }) {
    const table = mainTableName();
    const version = pwVersionIs(fromVersion);
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: keys.user(userId),
                UpdateExpression: "SET passwordHash = :h, pwVersion = :next, password_changed_at = :now",
                ConditionExpression: version.ConditionExpression,
                ExpressionAttributeValues: { ...version.ExpressionAttributeValues, ":h": passwordHash, ":next": fromVersion + 1, ":now": nowSec },
              },
            },
            {
              Delete: {
                TableName: table,
                Key: keys.passwordReset(tokenHash),
                ConditionExpression: "attribute_exists(pk) AND expiresAt > :now",
                ExpressionAttributeValues: { ":now": nowSec },
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (cancelledOnCondition(err)) return false;
      throw err;
    }
  },
};
