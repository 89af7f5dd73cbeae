/**
 * The per-day report counters are written in REPORT_SHARDS partitions (a busy account's every
 * message adds to its day item): the value read back stays exact, whichever shards the writes hit,
 * concurrent writes included, and an item written before sharding (shard 0) still counts.
 */
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { db, mainTableName } from "../../shared/db/client.ts";
import { contactsRepo } from "../../shared/db/contacts-repo.ts";
import { conversationsRepo } from "../../shared/db/conversations-repo.ts";
import { inboxesRepo } from "../../shared/db/inboxes-repo.ts";
import { keys, REPORT_SHARDS } from "../../shared/db/keys.ts";
import { queryAll } from "../../shared/db/query.ts";
import { reportsRepo } from "../../shared/db/reports-repo.ts";
import { createContact } from "../../shared/domain/contacts.ts";
import { createConversation } from "../../shared/domain/conversations/conversations.ts";
import { createMessage } from "../../shared/domain/conversations/messages.ts";
import { createInbox } from "../../shared/domain/inboxes.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

// 2026-05-04 00:00 UTC and an injected clock.
const DAY0 = Date.UTC(2026, 4, 4) / 1000;
const at = (seconds: number) => new Date((DAY0 + seconds) * 1000);

let a: AccountFixture;
let inboxId = 0;
const conversations: number[] = [];

beforeAll(async () => {
  a = await makeAccount("Shards");
  inboxId = (await createInbox(inboxesRepo, a.accountId, { name: "Busy", channel: { type: "api" } }, at(0))).id;
  const contact = await createContact(contactsRepo, a.accountId, { name: "Sam" }, at(0));
  for (let i = 0; i < 4; i++) conversations.push((await createConversation(conversationsRepo, a.accountId, a.agentUserId, { inbox_id: inboxId, contact_id: contact.id }, at(1))).id);
});

const shardValues = async (scope: string, field: string): Promise<number[]> =>
  Promise.all(
    Array.from({ length: REPORT_SHARDS }, async (_, shard) => {
      const items = await queryAll({ KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": keys.reportPartition(a.accountId, scope, shard).pk } });
      return items.reduce((sum, i) => sum + Number(i[field] ?? 0), 0);
    }),
  );

describe("report counter shards", () => {
  it("every shard is its own partition key, shard 0 the unsharded one", () => {
    const pks = Array.from({ length: REPORT_SHARDS }, (_, s) => keys.reportPartition(7, "account", s).pk);

    expect(new Set(pks).size).toBe(REPORT_SHARDS);
    expect(pks[0]).toBe("ACCOUNT#7#REPORT#account");
    expect(keys.reportDay(7, "inbox#3", "2026-05-04", 2)).toEqual({ pk: "ACCOUNT#7#REPORT#inbox#3#S2", sk: "DAY#2026-05-04" });
  });

  it("counts every message exactly once across the shards, under concurrent writes", async () => {
    const perConversation = 12;

    // Four conversations write at once, each its messages one after another.
    await Promise.all(
      conversations.map(async (conversationId, c) => {
        for (let i = 0; i < perConversation; i++) {
          await createMessage(conversationsRepo, a.accountId, conversationId, a.agentUserId, { content: `in ${c}.${i}`, message_type: "incoming" }, at(100 + i));
        }
      }),
    );

    const total = conversations.length * perConversation;
    const [row] = await reportsRepo.readDays(a.accountId, "account", "2026-05-04", "2026-05-04");
    const [inboxRow] = await reportsRepo.readDays(a.accountId, `inbox#${inboxId}`, "2026-05-04", "2026-05-04");
    const perShard = await shardValues("account", "incoming_messages_count");
    expect(row?.fields.incoming_messages_count).toBe(total);
    expect(inboxRow?.fields.incoming_messages_count).toBe(total);
    expect(perShard.reduce((x, y) => x + y, 0)).toBe(total);
    // 48 writes over 4 shards: more than one shard is used (all in one: probability 4 x 4^-48).
    expect(perShard.filter((v) => v > 0).length).toBeGreaterThan(1);
  });

  it("adds a day item written before sharding (shard 0) to the shards' sum", async () => {
    const before = (await reportsRepo.readDays(a.accountId, "account", "2026-05-04", "2026-05-04"))[0]?.fields.incoming_messages_count ?? 0;

    await db().send(
      new UpdateCommand({
        TableName: mainTableName(),
        Key: keys.reportDay(a.accountId, "account", "2026-05-04"),
        UpdateExpression: "ADD incoming_messages_count :n",
        ExpressionAttributeValues: { ":n": 5 },
      }),
    );

    const rows = await reportsRepo.readDays(a.accountId, "account", "2026-05-04", "2026-05-04");
    expect(rows).toHaveLength(1);
    expect(rows[0]?.fields.incoming_messages_count).toBe(before + 5);
  });
});
