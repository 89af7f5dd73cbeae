import { api } from "../shared/http/api.ts";
import { contactsRepo } from "../shared/db/contacts-repo.ts";
import { createContact, contactShown } from "../shared/domain/contacts.ts";
import { contactCreatedReply, createContactBody } from "../shared/http/schemas/contacts.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("contacts.create", { body: createContactBody, response: contactCreatedReply }, async (ctx) => ({
  body: payloadReply({ contact: contactShown(await createContact(contactsRepo, ctx.accountId, ctx.body, ctx.now)) }),
}));
