import type { Inbox, InboxStore } from "../domain/inboxes.ts";
import { accountsRepo } from "./accounts-repo.ts";
import { mainTableName } from "./client.ts";
import { getItem, guardConcurrent, newRev, nextAccountScopedId, remember, strip, transact, unchangedSince } from "./items.ts";
import { keys } from "./keys.ts";
import { queryPrefix } from "./query.ts";

export const toInbox = (item: Record<string, unknown>): Inbox => remember(strip<Inbox>(item), item["rev"]);

/** Public lookup of a web widget's inbox by its website_token. */
export const websiteTokenKey = (token: string) => ({ pk: `WEBSITE_TOKEN#${token}`, sk: "WEBSITE_TOKEN" });

export const inboxesRepo: InboxStore = {
  getAccount: accountsRepo.getAccount,
  nextInboxId: (accountId) => nextAccountScopedId(accountId, "inbox"),

  async insertInbox(inbox, events) {
    const table = mainTableName();
    await transact(
      [
        {
          Put: {
            TableName: table,
            Item: { ...keys.inbox(inbox.account_id, inbox.id), entity: "inbox", rev: newRev(), ...inbox },
            ConditionExpression: "attribute_not_exists(pk)",
          },
        },
        ...(inbox.website_token
          ? [
              {
                Put: {
                  TableName: table,
                  Item: { ...websiteTokenKey(inbox.website_token), entity: "website_token", accountId: inbox.account_id, inboxId: inbox.id },
                  ConditionExpression: "attribute_not_exists(pk)",
                },
              },
            ]
          : []),
      ],
      events,
    );
  },

  async getInbox(accountId, inboxId) {
    const item = await getItem(keys.inbox(accountId, inboxId));
    return item ? toInbox(item) : undefined;
  },

  async listInboxes(accountId) {
    const k = keys.inboxPrefix(accountId);
    return (await queryPrefix(k.pk, k.skPrefix, { consistent: true })).map(toInbox);
  },

  async replaceInbox(prev, next, events) {
    await guardConcurrent(() => transact(
      [
        {
          Put: {
            TableName: mainTableName(),
            Item: { ...keys.inbox(next.account_id, next.id), entity: "inbox", rev: newRev(), ...next },
            ...unchangedSince(prev),
          },
        },
      ],
      events,
    ));
  },
};
