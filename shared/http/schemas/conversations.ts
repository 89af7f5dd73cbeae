import * as z from "zod/mini";
import { MESSAGE_CONTENT_TYPES, PRIORITIES, STATUSES } from "../../domain/conversations/model.ts";
import { pagingShape, queryInt } from "./paging.ts";
import { contactRefView } from "./contacts.ts";
import { lazy } from "../../lazy.ts";
import { MAX_UNIX_SECONDS } from "../../clock.ts";
import { attrsField, blankAsNull, boolField, intField, named, pageMetaView, reply, unixTime, type ReplySpec } from "./common.ts";

const id = intField();
const attrs = z.record(z.string(), z.unknown());
const content = z.string().check(z.maxLength(150_000));
/** A priority, or none: `null` or Chatwoot's `"none"` (its swagger lists it; stored as null). */
const priority = () =>
  z.optional(blankAsNull(z.pipe(z.nullable(z.enum([...PRIORITIES, "none"])), z.transform((v) => (v === "none" ? null : v)))));

export const createConversationBody = lazy(() => z.object({
  inbox_id: id,
  contact_id: id,
  status: z.optional(z.enum(STATUSES)),
  assignee_id: z.optional(blankAsNull(z.nullable(id))),
  priority: priority(),
  custom_attributes: z.optional(attrsField()),
  additional_attributes: z.optional(attrsField()),
  message: z.optional(z.object({ content: content.check(z.minLength(1)), private: z.optional(boolField()) })),
  // Chatwoot's create form also carries these; accepted (a contact's source id, a team: none here).
  source_id: z.optional(z.nullable(z.string().check(z.maxLength(255)))),
  team_id: z.optional(z.nullable(intField())),
  contact_inbox_id: z.optional(z.nullable(intField())),
}));

export const updateConversationBody = lazy(() => z.object({
  priority: priority(),
  custom_attributes: z.optional(attrsField()),
  additional_attributes: z.optional(attrsField()),
}));

export const listConversationsQuery = lazy(() => z.object({
  ...pagingShape,
  status: z._default(z.enum([...STATUSES, "all"]), "open"),
  inbox_id: z.optional(queryInt),
  assignee_type: z._default(z.enum(["me", "unassigned", "assigned", "all"]), "all"),
}));

export const metaQuery = lazy(() => z.object({
  status: z._default(z.enum([...STATUSES, "all"]), "open"),
  inbox_id: z.optional(queryInt),
}));

export const toggleStatusBody = lazy(() => z.object({
  status: z.optional(z.enum(STATUSES)),
  // Unix seconds up to the year 9999 (a later one is milliseconds sent for seconds).
  snoozed_until: z.optional(intField(1, MAX_UNIX_SECONDS)),
}));

export const typingBody = lazy(() => z.object({
  typing_status: z.enum(["on", "off"]),
  is_private: z.optional(boolField()),
}));

export const assignmentBody = lazy(() => z.object({ assignee_id: blankAsNull(z.nullable(id)) }));

/** The JSON body, or the text fields of the multipart form (files go beside it, as `attachments[]`). */
export const createMessageBody = lazy(() => z.object({
  content: z.optional(content),
  message_type: z.optional(z.enum(["outgoing", "incoming"])),
  private: z.optional(boolField()),
  content_type: z.optional(z.enum(MESSAGE_CONTENT_TYPES)),
  content_attributes: z.optional(attrsField()),
  attachment_ids: z.optional(z.array(id).check(z.maxLength(10))),
  source_id: z.optional(z.string().check(z.maxLength(255))),
}));

export const updateMessageBody = lazy(() => z.object({
  content: z.optional(content),
  content_attributes: z.optional(attrsField()),
}));

export const transcriptQuery = lazy(() => z.object({ format: z._default(z.enum(["json", "text"]), "json") }));

// ---------------------------------------------------------------- replies

const role = z.enum(["administrator", "agent"]);

export const senderView = named(
  "Sender",
  () => z.looseObject({
    id: z.int(),
    name: z.string(),
    type: z.enum(["contact", "user"]),
    email: z.optional(z.nullable(z.string())),
    thumbnail: z.optional(z.string()),
  }),
);

export const userRefView = named("UserRef", () => z.looseObject({
  id: z.int(),
  name: z.string(),
  available_name: z.string(),
  email: z.string(),
  type: z.literal("user"),
  confirmed: z.boolean(),
  account_id: z.optional(z.int()),
}));

/** Chatwoot's attachment (`Attachment#push_event_data`); data_url is a signed, time-limited URL. */
export const attachmentView = named(
  "Attachment",
  () => z.looseObject({
    id: z.int(),
    message_id: z.optional(z.int()),
    file_type: z.enum(["image", "audio", "video", "file"]),
    extension: z.optional(z.nullable(z.string())),
    data_url: z.optional(z.string()),
    thumb_url: z.optional(z.string()),
    file_size: z.int(),
    account_id: z.optional(z.int()),
    content_type: z.string(),
    file_name: z.string(),
  }),
  "A file of a message (Chatwoot shape). Message replies, lists, the transcript and webhook payloads carry message_id, account_id, extension, data_url (signed, valid UPLOAD_URL_TTL_SECONDS) and thumb_url (images).",
);

const messageType = z.enum(["incoming", "outgoing", "activity", "template"]);
/** Chatwoot's integer message type of a reply: 0 incoming, 1 outgoing, 2 activity, 3 template. */
const messageTypeCode = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]);

export const messageView = named(
  "Message",
  () => z.looseObject({
    id: z.int(),
    account_id: z.int(),
    conversation_id: z.int(),
    inbox_id: z.int(),
    content: z.nullable(z.string()),
    message_type: messageTypeCode,
    content_type: z.string(),
    content_attributes: attrs,
    private: z.boolean(),
    source_id: z.nullable(z.string()),
    status: z.string(),
    sender: z.nullable(senderView()),
    attachments: z.array(attachmentView()),
    created_at: unixTime,
    updated_at: unixTime,
  }),
  "A message (Chatwoot's shape).",
);

const metaCounts = {
  mine_count: z.int(),
  assigned_count: z.int(),
  unassigned_count: z.int(),
  all_count: z.int(),
};

export const conversationView = named(
  "Conversation",
  () => z.looseObject({
    id: z.int(),
    account_id: z.int(),
    inbox_id: z.int(),
    contact_id: z.int(),
    status: z.enum(STATUSES),
    priority: z.nullable(z.enum(PRIORITIES)),
    assignee_id: z.nullable(z.int()),
    snoozed_until: z.nullable(unixTime),
    custom_attributes: attrs,
    additional_attributes: attrs,
    created_at: unixTime,
    updated_at: unixTime,
    last_activity_at: unixTime,
    timestamp: unixTime,
    unread_count: z.int(),
    muted: z.boolean(),
    can_reply: z.boolean(),
    labels: z.array(z.string()),
    meta: z.looseObject({ sender: z.nullable(contactRefView()), assignee: z.optional(userRefView()) }),
    messages: z.array(messageView()),
    last_non_activity_message: z.nullable(messageView()),
    first_reply_created_at: z.nullable(unixTime),
  }),
  "A conversation: the conversation with its contact (meta.sender), assignee and last message.",
);

export const conversationReply = reply(() => conversationView(), "The conversation");
export const conversationListReply = reply(
  () => z.looseObject({
    data: z.looseObject({ meta: z.looseObject({ ...metaCounts, ...pageMetaView().shape }), payload: z.array(conversationView()) }),
  }),
  "One page of conversations with the counters of the filter (Chatwoot shape + paging meta)",
);
export const conversationsMetaReply = reply(() => z.looseObject({ meta: z.looseObject(metaCounts) }), "The counters of the filter");
export const toggleStatusReply = reply(
  () => z.looseObject({
    meta: z.looseObject({}),
    payload: z.looseObject({ success: z.literal(true), current_status: z.enum(STATUSES), conversation_id: z.int(), snoozed_until: z.nullable(unixTime) }),
  }),
  "The new status",
);
export const typingReply = reply(() => z.looseObject({ success: z.literal(true) }), "The typing event is emitted");
export const assignmentReply = reply(
  () => z.nullable(z.looseObject({ ...userRefView().shape, role })),
  "The assignee (null when the conversation was unassigned)",
);
export const transcriptReply: ReplySpec = {
  ...reply(() => z.looseObject({
      payload: z.looseObject({
        conversation_id: z.int(),
        messages: z.array(
          z.looseObject({
            id: z.int(),
            content: z.nullable(z.string()),
            message_type: messageType,
            sender: z.nullable(senderView()),
            attachments: z.array(attachmentView()),
            created_at: unixTime,
          }),
        ),
      }),
    }),
    "The customer-visible messages (private notes left out)",
  ),
  text: "With `format=text`: the same transcript as text/plain, one line per message.",
};
export const messageReply = reply(() => messageView(), "The message");
export const messageListReply = reply(() => z.looseObject({ meta: pageMetaView(), payload: z.array(messageView()) }), "One page of the conversation's messages");
