import * as z from "zod/mini";
import { pagingShape } from "./paging.ts";
import { lazy } from "../../lazy.ts";
import { CONTACT_SORTS } from "../../domain/contacts.ts";
import { attrsField, blankAsNull, boolField, intField, named, pageMetaView, reply, unixTime, visible } from "./common.ts";

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(255), visible());
const email = z.string().check(z.trim(), z.maxLength(320), z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/));
/** E.164, like Chatwoot. */
const phone = z.string().check(z.regex(/^\+[1-9]\d{1,14}$/));
const identifier = z.string().check(z.trim(), z.minLength(1), z.maxLength(255));
const attrs = z.record(z.string(), z.unknown());

/** The optional fields of a contact, shared by create (name required) and update (all optional). */
const contactFields = {
  email: z.optional(blankAsNull(z.nullable(email))),
  phone_number: z.optional(blankAsNull(z.nullable(phone))),
  identifier: z.optional(blankAsNull(z.nullable(identifier))),
  custom_attributes: z.optional(attrsField()),
  additional_attributes: z.optional(attrsField()),
  blocked: z.optional(boolField()),
};

export const createContactBody = lazy(() => z.object({
  name,
  ...contactFields,
  // Chatwoot's create form names an inbox to attach the contact to: accepted (no per-inbox records here).
  inbox_id: z.optional(z.nullable(intField())),
  avatar_url: z.optional(z.nullable(z.string().check(z.maxLength(2048)))),
}));

export const updateContactBody = lazy(() => z.object({ name: z.optional(name), ...contactFields }));

export const searchContactsQuery = lazy(() => z.object({
  ...pagingShape,
  q: z.optional(z.string().check(z.maxLength(200))),
  sort: z.optional(z.enum(CONTACT_SORTS)),
}));

// ---------------------------------------------------------------- replies

/** What a contact shows wherever it appears (a contact, and `meta.sender` of a conversation). */
const contactViewFields = () => ({
  id: z.int(),
  name: z.string(),
  email: z.nullable(z.string()),
  phone_number: z.nullable(z.string()),
  identifier: z.nullable(z.string()),
  thumbnail: z.string(),
  custom_attributes: attrs,
  additional_attributes: attrs,
});

export const contactView = named(
  "Contact",
  () => {
    const { id, ...shown } = contactViewFields();
    return z.looseObject({ id, account_id: z.int(), ...shown, blocked: z.boolean(), created_at: unixTime, updated_at: unixTime, last_activity_at: z.nullable(unixTime) });
  },
  "A contact.",
);

/** The contact as embedded in a conversation (`meta.sender`). */
export const contactRefView = named("ContactRef", () => z.looseObject({ ...contactViewFields(), type: z.literal("contact") }));



/** C with Chatwoot's contact_inboxes (replies of create, show and update). */
const contactShownView = lazy(() => z.looseObject({ ...contactView().shape, contact_inboxes: z.array(z.looseObject({ source_id: z.string(), inbox: z.looseObject({ id: z.int(), name: z.string() }) })) }));

/** Lists and search show each contact as its own reply does (Chatwoot includes contact_inboxes by default). */
const contactPage = lazy(() => z.looseObject({ meta: pageMetaView(), payload: z.array(contactShownView()) }));
export const contactCreatedReply = reply(() => z.looseObject({ payload: z.looseObject({ contact: contactShownView() }) }), "The new contact");
export const contactReply = reply(() => z.looseObject({ payload: contactShownView() }), "The contact");
export const contactListReply = reply(contactPage, "One page of the account's contacts");
export const contactSearchReply = reply(contactPage, "One page of the matching contacts");
