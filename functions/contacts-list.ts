import { api } from "../shared/http/api.ts";
import { contactsRepo } from "../shared/db/contacts-repo.ts";
import { shownPage, listContacts } from "../shared/domain/contacts.ts";
import { pageQuery, pageRequest } from "../shared/http/schemas/paging.ts";
import { contactListReply } from "../shared/http/schemas/contacts.ts";
import { pageReply } from "../shared/http/replies.ts";

export const handler = api("contacts.list", { query: pageQuery, response: contactListReply }, async (ctx) => ({
  body: pageReply(shownPage(await listContacts(contactsRepo, ctx.accountId, pageRequest(ctx.query)))),
}));
