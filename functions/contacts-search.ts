import { api } from "../shared/http/api.ts";
import { contactsRepo } from "../shared/db/contacts-repo.ts";
import { shownPage, searchContacts } from "../shared/domain/contacts.ts";
import { pageRequest } from "../shared/http/schemas/paging.ts";
import { contactSearchReply, searchContactsQuery } from "../shared/http/schemas/contacts.ts";
import { pageReply } from "../shared/http/replies.ts";

export const handler = api("contacts.search", { query: searchContactsQuery, response: contactSearchReply }, async (ctx) => ({
  body: pageReply(shownPage(await searchContacts(contactsRepo, ctx.accountId, { q: ctx.query.q, sort: ctx.query.sort, req: pageRequest(ctx.query) }))),
}));
