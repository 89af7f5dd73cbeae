import { api } from "../shared/http/api.ts";
import { contactsRepo } from "../shared/db/contacts-repo.ts";
import { getContact, contactShown } from "../shared/domain/contacts.ts";
import { idParam } from "../shared/http/params.ts";
import { contactReply } from "../shared/http/schemas/contacts.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("contacts.show", { response: contactReply }, async (ctx) => ({
  body: payloadReply(contactShown(await getContact(contactsRepo, ctx.accountId, idParam(ctx.params, "contact_id")))),
}));
