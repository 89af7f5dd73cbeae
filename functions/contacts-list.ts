import { api } from "../shared/http/api.ts";
import { contactsRepo } from "../shared/db/contacts-repo.ts";
import { listContacts } from "../shared/domain/contacts.ts";
import { pageQuery, pageRequest } from "../shared/http/schemas/paging.ts";

export const handler = api("contacts.list", { query: pageQuery }, async (ctx) => ({
  body: await listContacts(contactsRepo, ctx.accountId, pageRequest(ctx.query)),
}));
