import { api } from "../shared/http/api.ts";
import { contactsRepo } from "../shared/db/contacts-repo.ts";
import { createContact } from "../shared/domain/contacts.ts";
import { contactCreatedReply, createContactBody } from "../shared/http/schemas/contacts.ts";

export const handler = api("contacts.create", { body: createContactBody, response: contactCreatedReply }, async (ctx) => ({
  body: { payload: { contact: await createContact(contactsRepo, ctx.accountId, ctx.body, ctx.now) } },
}));
