/**
 * Conversations, messages, the conversations/meta counter items and the per-day report counters.
 * A change and all its counters and outbox items go in ONE TransactWriteItems.
 */
import { randomInt } from "node:crypto";
import type { Attachment, Conversation, ConversationStore, CounterDelta, Effects, Message, MetaCounts, Status, User } from "../domain/conversations/model.ts";
import { STATUSES } from "../domain/conversations/model.ts";
import type { ReportIncrement } from "../domain/reports.ts";
import type { Role } from "../domain/identity.ts";
import type { Account } from "../domain/accounts.ts";
import { accountsRepo } from "./accounts-repo.ts";
import { mainTableName } from "./client.ts";
import { contactsRepo, toContact } from "./contacts-repo.ts";
import { inboxesRepo, toInbox } from "./inboxes-repo.ts";
import { getItem, guardConcurrent, newRev, nextAccountScopedId, remember, strip, transact, unchangedSince, type TransactItem } from "./items.ts";
import { keys, pad, REPORT_SHARDS } from "./keys.ts";
import { batchGet, prefixRange, queryAll, readRange } from "./query.ts";
import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";

const ID_MAX = 9_999_999_999;

const toConversation = (item: Record<string, unknown>): Conversation => strip<Conversation>(item);
const toUser = (i: Record<string, unknown>): User => ({ id: Number(i["id"]), name: String(i["name"] ?? ""), email: String(i["email"] ?? "") });
const isAt = (key: { pk: string; sk: string }) => (i: Record<string, unknown>) => i["pk"] === key.pk && i["sk"] === key.sk;
const toMessage = (item: Record<string, unknown>): Message => remember(strip<Message>(item), item["rev"]);

const conversationItem = (c: Conversation) => ({
  ...keys.conversation(c.account_id, c.id),
  ...keys.conversationGsi1(c.account_id, c.status, c.id),
  ...keys.conversationGsi2(c.account_id, c.inbox_id, c.status, c.id),
  entity: "conversation",
  ...c,
});

const messageItem = (m: Message) => ({ ...keys.message(m.account_id, m.conversation_id, m.id), entity: "message", rev: newRev(), ...m });

/** Counter attribute of one assignee inside a counter item. */
const assigneeAttr = (userId: number) => `u${userId}`;

function counterItems(accountId: number, deltas: readonly CounterDelta[]): TransactItem[] {
  const byKey = new Map<string, { status: Status; inbox: number | "*"; add: Map<string, number> }>();
  for (const d of deltas) {
    for (const inbox of [d.inboxId, "*"] as const) {
      const k = `${d.status}#${inbox}`;
      const entry = byKey.get(k) ?? { status: d.status, inbox, add: new Map<string, number>() };
      const bump = (attr: string, by: number) => entry.add.set(attr, (entry.add.get(attr) ?? 0) + by);
      bump("all", d.all);
      bump("assigned", d.assigned);
      if (d.assignee) bump(assigneeAttr(d.assignee.userId), d.assignee.by);
      byKey.set(k, entry);
    }
  }
  return [...byKey.values()].flatMap((e) => {
    const adds = [...e.add].filter(([, by]) => by !== 0);
    if (!adds.length) return [];
    return [addItem(keys.conversationCounter(accountId, e.status, e.inbox), adds)];
  });
}

function addItem(key: { pk: string; sk: string }, adds: [string, number][]): TransactItem {
  return {
    Update: {
      TableName: mainTableName(),
      Key: key,
      UpdateExpression: `ADD ${adds.map((_, i) => `#a${i} :a${i}`).join(", ")}`,
      ExpressionAttributeNames: Object.fromEntries(adds.map(([attr], i) => [`#a${i}`, attr])),
      ExpressionAttributeValues: Object.fromEntries(adds.map(([, by], i) => [`:a${i}`, by])),
    },
  };
}

function reportItems(accountId: number, increments: readonly ReportIncrement[]): TransactItem[] {
  const byKey = new Map<string, { key: { pk: string; sk: string }; add: Map<string, number> }>();
  // Any shard will do: the read sums them (a busy account's writes spread over REPORT_SHARDS partitions).
  const shard = randomInt(REPORT_SHARDS);
  for (const inc of increments) {
    for (const scope of ["account", `inbox#${inc.inboxId}`]) {
      const key = keys.reportDay(accountId, scope, inc.day, shard);
      const k = `${key.pk}|${key.sk}`;
      const entry = byKey.get(k) ?? { key, add: new Map<string, number>() };
      for (const [f, by] of Object.entries(inc.fields)) if (by) entry.add.set(f, (entry.add.get(f) ?? 0) + by);
      byKey.set(k, entry);
    }
  }
  return [...byKey.values()].filter((e) => e.add.size).map((e) => addItem(e.key, [...e.add]));
}

function effectItems(accountId: number, effects: Effects): TransactItem[] {
  const items = [...counterItems(accountId, effects.counters), ...reportItems(accountId, effects.reports)];
  if (effects.touchContact) {
    items.push({
      Update: {
        TableName: mainTableName(),
        Key: keys.contact(accountId, effects.touchContact.contactId),
        UpdateExpression: "SET last_activity_at = :t",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":t": effects.touchContact.at },
      },
    });
  }
  return items;
}

/** `attr` still holds `value` (null = stored as NULL or absent). */
function equalsCondition(attr: string, value: unknown, i: number) {
  const name = `#c${i}`;
  if (value === null || value === undefined) {
    return { expr: `(attribute_not_exists(${name}) OR attribute_type(${name}, :cnull))`, names: { [name]: attr }, values: { ":cnull": "NULL" } };
  }
  return { expr: `${name} = :c${i}`, names: { [name]: attr }, values: { [`:c${i}`]: value } };
}

/**
 * A status change moves the conversation between the status index partitions (gsi1: account and
 * status, gsi2: inbox and status): the SET parts and values that do it.
 */
function statusIndexSets(conv: Pick<Conversation, "account_id" | "inbox_id" | "id">, status: Status) {
  return {
    parts: ["gsi1pk = :g1pk", "gsi2pk = :g2pk"],
    values: { ":g1pk": keys.conversationGsi1(conv.account_id, status, conv.id).gsi1pk, ":g2pk": keys.conversationGsi2(conv.account_id, conv.inbox_id, status, conv.id).gsi2pk },
  };
}

export const conversationsRepo: ConversationStore = {
  getAccount: accountsRepo.getAccount,
  nextId: (accountId, name) => nextAccountScopedId(accountId, name),
  getInbox: inboxesRepo.getInbox,
  getContact: contactsRepo.getContact,
  getContacts: contactsRepo.getContacts,
  findRole: (accountId: number, userId: number): Promise<Role | undefined> => accountsRepo.findRole(accountId, userId),

  async getUsers(userIds) {
    const items = await batchGet(userIds.map((id) => keys.user(id)));
    return items.map(toUser);
  },

  async getConversationContext(accountId, conversationId, userIds) {
    const accountKey = keys.account(accountId);
    const convKey = keys.conversation(accountId, conversationId);
    const items = await batchGet([accountKey, convKey, ...userIds.map((id) => keys.user(id))], true);
    const account = items.find(isAt(accountKey));
    const conversation = items.find(isAt(convKey));
    return {
      ...(account ? { account: strip<Account>(account) } : {}),
      ...(conversation ? { conversation: toConversation(conversation) } : {}),
      users: items.filter((i) => i !== account && i !== conversation).map(toUser),
    };
  },

  async getInboxAndContact(accountId, inboxId, contactId) {
    const inboxKey = keys.inbox(accountId, inboxId);
    const contactKey = contactId === undefined ? undefined : keys.contact(accountId, contactId);
    const items = await batchGet(contactKey ? [inboxKey, contactKey] : [inboxKey], true);
    const inbox = items.find(isAt(inboxKey));
    const contact = contactKey ? items.find(isAt(contactKey)) : undefined;
    return { ...(inbox ? { inbox: toInbox(inbox) } : {}), ...(contact ? { contact: toContact(contact) } : {}) };
  },

  async getAttachments(accountId, blobIds) {
    const items = await batchGet(blobIds.map((id) => keys.upload(accountId, id)));
    return items.map((i) => ({
      id: Number(i["id"]),
      file_type: String(i["file_type"]),
      content_type: String(i["content_type"]),
      file_name: String(i["file_name"]),
      file_size: Number(i["file_size"]),
      blob_key: String(i["blob_key"]),
      object_key: String(i["object_key"]),
      extension: /\.([A-Za-z0-9]{1,10})$/.exec(String(i["file_name"]))?.[1]?.toLowerCase() ?? null,
    }) satisfies Attachment);
  },

  async insertConversation(conv, message, effects, events) {
    const table = mainTableName();
    await transact(
      [
        { Put: { TableName: table, Item: conversationItem(conv), ConditionExpression: "attribute_not_exists(pk)" } },
        ...(message ? [{ Put: { TableName: table, Item: messageItem(message), ConditionExpression: "attribute_not_exists(pk)" } }] : []),
        ...effectItems(conv.account_id, effects),
      ],
      events,
    );
  },

  async getConversation(accountId, conversationId) {
    const item = await getItem(keys.conversation(accountId, conversationId));
    return item ? toConversation(item) : undefined;
  },

  async listConversations(accountId, f, req) {
    const hi = req.afterId !== undefined ? Math.max(req.afterId - 1, 0) : ID_MAX;
    const skip = req.afterId !== undefined ? 0 : (req.page - 1) * req.per;
    const filters: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    if (f.assigneeType === "me") {
      filters.push("#asg = :me");
      names["#asg"] = "assignee_id";
      values[":me"] = f.userId;
    } else if (f.assigneeType !== "all") {
      filters.push(f.assigneeType === "assigned" ? "attribute_type(#asg, :num)" : "NOT attribute_type(#asg, :num)");
      names["#asg"] = "assignee_id";
      values[":num"] = "N";
    }
    const filter = {
      ...(filters.length ? { FilterExpression: filters.join(" AND ") } : {}),
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    };
    /** Newest first within one status index partition, ids up to `hi`. */
    const indexRange = (index: "gsi1" | "gsi2", pk: string) => ({
      IndexName: index,
      KeyConditionExpression: `${index}pk = :pk AND ${index}sk BETWEEN :lo AND :hi`,
      ScanIndexForward: false,
      ...filter,
      ExpressionAttributeValues: { ":pk": pk, ":lo": pad(0), ":hi": pad(hi), ...values },
    });
    const gsi2Range = (inboxId: number, status: string) => indexRange("gsi2", keys.conversationGsi2(accountId, inboxId, status, 0).gsi2pk);
    let items: Record<string, unknown>[];
    let hasMore: boolean;
    const inboxId = f.inboxId;
    if (f.status === "all" && inboxId !== undefined) {
      // One inbox, every status: the inbox's index partition of each status, newest first, merged.
      // Each partition gives at most skip + per items (the page can hold no more of one status),
      // so the cost follows the page and the inbox, never the account's other inboxes.
      const parts = await Promise.all(STATUSES.map((status) => readRange(gsi2Range(inboxId, status), 0, skip + req.per)));
      const merged = parts.flatMap((p) => p.items).sort((x, y) => Number(y["id"]) - Number(x["id"]));
      items = merged.slice(skip, skip + req.per);
      hasMore = merged.length > skip + req.per || parts.some((p) => p.hasMore);
    } else {
      let range: Omit<QueryCommandInput, "TableName" | "ExclusiveStartKey" | "Limit">;
      if (f.status !== "all" && inboxId !== undefined) {
        range = gsi2Range(inboxId, f.status);
      } else if (f.status !== "all") {
        range = indexRange("gsi1", keys.conversationGsi1(accountId, f.status, 0).gsi1pk);
      } else {
        // status=all, every inbox: the account's conversation items.
        const k = keys.conversationPrefix(accountId);
        range = {
          KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
          ScanIndexForward: false,
          ...filter,
          ExpressionAttributeValues: { ":pk": k.pk, ":lo": `${k.skPrefix}${pad(0)}`, ":hi": `${k.skPrefix}${pad(hi)}`, ...values },
        };
      }
      ({ items, hasMore } = await readRange(range, skip, req.per));
    }
    const convs = items.map(toConversation);
    return { items: convs, hasMore, lastId: convs.at(-1)?.id };
  },

  async changeConversation(prev, change, effects, events) {
    const sets = Object.entries(change);
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const parts = sets.map(([attr, value], i) => {
      names[`#s${i}`] = attr;
      values[`:s${i}`] = value;
      return `#s${i} = :s${i}`;
    });
    const status = change.status ?? prev.status;
    if (status !== prev.status) {
      const moved = statusIndexSets(prev, status);
      parts.push(...moved.parts);
      Object.assign(values, moved.values);
    }
    const conds = [equalsCondition("status", prev.status, 0), equalsCondition("assignee_id", prev.assignee_id, 1)];
    for (const c of conds) {
      Object.assign(names, c.names);
      Object.assign(values, c.values);
    }
    await guardConcurrent(() =>
      transact(
        [
          {
            Update: {
              TableName: mainTableName(),
              Key: keys.conversation(prev.account_id, prev.id),
              UpdateExpression: `SET ${parts.join(", ")}`,
              ConditionExpression: `attribute_exists(pk) AND ${conds.map((c) => c.expr).join(" AND ")}`,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: values,
            },
          },
          ...effectItems(prev.account_id, effects),
        ],
        events,
      ),
    );
  },

  async metaCounts(accountId, f) {
    const statuses: readonly Status[] = f.status === "all" ? STATUSES : [f.status];
    const items = await batchGet(statuses.map((s) => keys.conversationCounter(accountId, s, f.inboxId ?? "*")));
    const sum = (attr: string) => items.reduce((n, i) => n + Number(i[attr] ?? 0), 0);
    const all = sum("all");
    const assigned = sum("assigned");
    return { mine_count: sum(assigneeAttr(f.userId)), assigned_count: assigned, unassigned_count: all - assigned, all_count: all } satisfies MetaCounts;
  },

  async insertMessage(conv, message, firstReply, effects, events, reopen) {
    const table = mainTableName();
    const sets = ["last_message = :m", "last_activity_at = :t", ...(firstReply ? ["first_reply_created_at = :t"] : [])];
    const conds = ["attribute_exists(pk)", ...(firstReply ? ["attribute_type(first_reply_created_at, :null)"] : [])];
    const values: Record<string, unknown> = { ":m": message, ":t": message.created_at, ":one": 1, ...(firstReply ? { ":null": "NULL" } : {}) };
    if (reopen) {
      // The counters move in `effects`, so the status read must still hold (a concurrent toggle
      // makes this a 409 to retry).
      const moved = statusIndexSets(conv, reopen.status);
      sets.push("#status = :status", "snoozed_until = :snoozed", "updated_at = :u", ...moved.parts);
      conds.push("#status = :prevStatus");
      Object.assign(values, { ":status": reopen.status, ":snoozed": null, ":u": reopen.updatedAt, ":prevStatus": conv.status }, moved.values);
    }
    await guardConcurrent(() =>
      transact(
        [
          { Put: { TableName: table, Item: messageItem(message), ConditionExpression: "attribute_not_exists(pk)" } },
          {
            Update: {
              TableName: table,
              Key: keys.conversation(conv.account_id, conv.id),
              UpdateExpression: `SET ${sets.join(", ")} ADD messages_count :one`,
              ConditionExpression: conds.join(" AND "),
              ...(reopen ? { ExpressionAttributeNames: { "#status": "status" } } : {}),
              ExpressionAttributeValues: values,
            },
          },
          ...effectItems(conv.account_id, effects),
        ],
        events,
      ),
    );
  },

  async getMessage(accountId, conversationId, messageId) {
    const item = await getItem(keys.message(accountId, conversationId, messageId));
    return item ? toMessage(item) : undefined;
  },

  async replaceMessage(prev, next, conv, events) {
    const table = mainTableName();
    const isLast = conv.last_message?.id === next.id;
    await guardConcurrent(() =>
      transact(
        [
          { Put: { TableName: table, Item: messageItem(next), ...unchangedSince(prev) } },
          // A newer message arriving meanwhile fails the condition: a 409 the client retries.
          ...(isLast
            ? [
                {
                  Update: {
                    TableName: table,
                    Key: keys.conversation(conv.account_id, conv.id),
                    UpdateExpression: "SET last_message = :m",
                    ConditionExpression: "last_message.id = :id",
                    ExpressionAttributeValues: { ":m": next, ":id": next.id },
                  },
                },
              ]
            : []),
        ],
        events,
      ),
    );
  },

  async listMessages(accountId, conversationId, req) {
    const k = keys.messagePrefix(accountId, conversationId);
    const from = req.afterId !== undefined ? req.afterId + 1 : 0;
    const { items, hasMore } = await readRange(
      {
        KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
        ExpressionAttributeValues: { ":pk": k.pk, ":lo": `${k.skPrefix}${pad(from)}`, ":hi": `${k.skPrefix}${pad(ID_MAX)}` },
      },
      req.afterId !== undefined ? 0 : (req.page - 1) * req.per,
      req.per,
    );
    const messages = items.map(toMessage);
    return { items: messages, hasMore, lastId: messages.at(-1)?.id };
  },

  async allMessages(accountId, conversationId) {
    const k = keys.messagePrefix(accountId, conversationId);
    const r = prefixRange(k.skPrefix);
    const items = await queryAll({ KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi", ExpressionAttributeValues: { ":pk": k.pk, ":lo": r.lo, ":hi": r.hi } });
    return items.map(toMessage);
  },

  emit: (events) => transact([], events),
};
