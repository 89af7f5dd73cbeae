import { api } from "../shared/http/api.ts";
import { contactsRepo } from "../shared/db/contacts-repo.ts";
import { updateContact, contactShown } from "../shared/domain/contacts.ts";
import { idParam } from "../shared/http/params.ts";
import { contactReply, updateContactBody } from "../shared/http/schemas/contacts.ts";
import { payloadReply } from "../shared/http/replies.ts";

/** PATCH and PUT share this function (Chatwoot treats both as a partial update). */
export const handler = api("contacts.update", { body: updateContactBody, response: contactReply }, async (ctx) => ({
  body: payloadReply(contactShown(await updateContact(contactsRepo, ctx.accountId, idParam(ctx.params, "contact_id"), ctx.body, ctx.now))),
}));
