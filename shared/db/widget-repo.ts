import type { WidgetStore } from "../domain/widget.ts";
import { accountsRepo } from "./accounts-repo.ts";
import { contactsRepo } from "./contacts-repo.ts";
import { inboxesRepo, websiteTokenKey } from "./inboxes-repo.ts";
import { getItem, transact } from "./items.ts";
import { keys } from "./keys.ts";

export const widgetRepo: WidgetStore = {
  async findWidgetInbox(token) {
    const item = await getItem(websiteTokenKey(token), false);
    return item ? { accountId: Number(item["accountId"]), inboxId: Number(item["inboxId"]) } : undefined;
  },
  getAccount: accountsRepo.getAccount,
  getInbox: inboxesRepo.getInbox,
  async findContactByIdentifier(accountId, identifier) {
    const marker = await getItem(keys.contactIdentifier(accountId, identifier), false);
    return marker ? contactsRepo.getContact(accountId, Number(marker["contactId"])) : undefined;
  },
  emit: (events) => transact([], events),
};
