/** Messages of a conversation: create (an incoming one reopens a resolved or snoozed conversation), update, list. */
import { changedAttributes } from "../contacts.ts";
import { NotFound, ValidationError } from "../../errors.ts";
import type { DomainEvent } from "../../events/outbox.ts";
import { pageMeta, type Listing, type PageRequest } from "../paging.ts";
import { dayOf, type ReportIncrement } from "../reports.ts";
import { countedMessage, need, presence, requireConversation, secondsOf } from "./changes.ts";
import type { Attachment, Conversation, ConversationStore, Message, MessageContentType, MessageType, Sender } from "./model.ts";
import { checkFiles, storeFiles, withAttachmentUrls, type AttachmentFiles, type MessageFile } from "./attachments.ts";
import { contactSender, conversationEvent, messageEvent, userSender, viewOf } from "./views.ts";
import { retryOnStale } from "../retry.ts";

export function newMessage(
  conv: Conversation,
  id: number,
  input: {
    content: string | null;
    message_type: MessageType;
    private: boolean;
    content_type?: MessageContentType | undefined;
    content_attributes?: Record<string, unknown> | undefined;
    source_id?: string | null | undefined;
  },
  sender: Sender | null,
  attachments: readonly Attachment[],
  ts: number,
): Message {
  return {
    id,
    account_id: conv.account_id,
    conversation_id: conv.id,
    inbox_id: conv.inbox_id,
    content: input.content,
    message_type: input.message_type,
    content_type: input.content_type ?? "text",
    content_attributes: input.content_attributes ?? {},
    private: input.private,
    source_id: input.source_id ?? null,
    status: "sent",
    sender,
    attachments,
    created_at: ts,
    updated_at: ts,
  };
}

export interface CreateMessageInput {
  readonly content?: string | undefined;
  readonly message_type?: "incoming" | "outgoing" | undefined;
  readonly private?: boolean | undefined;
  readonly content_type?: MessageContentType | undefined;
  readonly content_attributes?: Record<string, unknown> | undefined;
  readonly attachment_ids?: readonly number[] | undefined;
  readonly source_id?: string | undefined;
}

/** Files sent with the message (multipart `attachments[]`) and where they go. */
export interface NewFiles {
  readonly list: readonly MessageFile[];
  readonly store: AttachmentFiles;
}

/** The message in Chatwoot's reply shape: attachments with data_url (signed), message_id... */
export type RenderedMessage = Message;

/**
 * Checks the files, writes them once (before the transaction: a failed transaction leaves only
 * orphan files), and returns what the message will reference. Outside the retries of a lost race.
 */
async function storeNewFiles(store: ConversationStore, accountId: number, conversationId: number, files: NewFiles | undefined): Promise<Attachment[]> {
  const checked = checkFiles(files?.list ?? []);
  if (!files || checked.length === 0) return [];
  await requireConversation(store, accountId, conversationId);
  return storeFiles(files.store, accountId, conversationId, checked);
}

export async function createMessage(
  store: ConversationStore,
  accountId: number,
  conversationId: number,
  userId: number,
  input: CreateMessageInput,
  now: Date,
  files?: NewFiles,
): Promise<RenderedMessage> {
  const stored = await storeNewFiles(store, accountId, conversationId, files);
  // Read again and re-applied on fresh state when a concurrent write to its conversation won the race.
  return retryOnStale(() => createMessageOnce(store, accountId, conversationId, userId, input, now, stored, files?.store));
}

async function createMessageOnce(
  store: ConversationStore,
  accountId: number,
  conversationId: number,
  userId: number,
  input: CreateMessageInput,
  now: Date,
  stored: readonly Attachment[],
  signer: AttachmentFiles | undefined,
): Promise<RenderedMessage> {
  const type = input.message_type ?? "outgoing";
  // The account, the conversation and the sender read together; the inbox and the contact (both
  // named by the event) as soon as the conversation is known, beside the id and the uploads.
  const contextP = store.getConversationContext(accountId, conversationId, type === "outgoing" ? [userId] : []);
  const convP = need(contextP.then((c) => c.conversation));
  const [context, conv, id, uploaded, refs] = await Promise.all([
    contextP,
    convP,
    store.nextId(accountId, "message"),
    input.attachment_ids?.length ? store.getAttachments(accountId, input.attachment_ids) : Promise.resolve([]),
    convP.then((c) => store.getInboxAndContact(accountId, c.inbox_id, type === "incoming" ? c.contact_id : undefined)),
  ]);
  const { account, users } = context;
  const { inbox, contact } = refs;
  if (!account || !inbox) throw new NotFound();
  if (input.attachment_ids?.length && uploaded.length !== new Set(input.attachment_ids).size) {
    throw ValidationError.field("attachment_ids", "invalid", "contains an unknown upload");
  }
  // An upload referenced by several messages is one file, but each message's attachment is its own,
  // with an id of its own (as in Chatwoot), from the counter uploads and message files share.
  const referenced = signer ? await Promise.all(uploaded.map(async (u) => ({ ...u, id: await signer.nextBlobId(accountId) }))) : uploaded;
  const attachments = [...referenced, ...stored];
  if (!input.content && attachments.length === 0) throw ValidationError.field("content", "blank", "can't be blank");
  const sender = type === "incoming" ? (contact ? contactSender(contact) : null) : users[0] ? userSender(users[0]) : null;
  const ts = secondsOf(now);
  const message = newMessage(conv, id, {
      content: input.content ?? null,
      message_type: type,
      private: input.private ?? false,
      content_type: input.content_type,
      content_attributes: input.content_attributes,
      source_id: input.source_id,
    }, sender, attachments, ts);
  const firstReply = type === "outgoing" && !message.private && conv.first_reply_created_at === null;
  const fields: ReportIncrement["fields"] = {};
  if (countedMessage(message)) fields[type === "incoming" ? "incoming_messages_count" : "outgoing_messages_count"] = 1;
  if (firstReply) Object.assign(fields, { first_response_sum: Math.max(0, ts - conv.created_at), first_response_count: 1 });
  // Chatwoot: a contact writing to a resolved or snoozed conversation opens it again.
  const reopen = type === "incoming" && (conv.status === "resolved" || conv.status === "snoozed") ? { status: "open" as const, updatedAt: Math.max(ts, conv.updated_at) } : undefined;
  const after: Conversation = {
    ...conv,
    ...(reopen ? { status: reopen.status, snoozed_until: null, updated_at: reopen.updatedAt } : {}),
    last_message: message,
    last_activity_at: ts,
    messages_count: conv.messages_count + 1,
  };
  const rendered = await withAttachmentUrls(message, signer);
  const statusEvents: DomainEvent[] = [];
  if (reopen) {
    const view = await viewOf(store, after);
    const changed = changedAttributes(conv, after, ["status"]);
    statusEvents.push(conversationEvent("conversation_status_changed", view, account, changed), conversationEvent("conversation_updated", view, account, changed));
  }
  await store.insertMessage(
    conv,
    message,
    firstReply,
    {
      counters: reopen ? [presence(conv, -1), presence(after, 1)] : [],
      reports: Object.keys(fields).length ? [{ day: dayOf(ts), inboxId: conv.inbox_id, fields }] : [],
      touchContact: type === "incoming" ? { contactId: conv.contact_id, at: ts } : undefined,
    },
    [...statusEvents, messageEvent("message_created", rendered, after, inbox, account)],
    reopen,
  );
  return rendered;
}

async function updateMessageOnce(
  store: ConversationStore,
  accountId: number,
  conversationId: number,
  messageId: number,
  input: UpdateMessageInput,
  now: Date,
  added: readonly Attachment[],
  signer: AttachmentFiles | undefined,
): Promise<RenderedMessage> {
  const [account, conv, prev] = await Promise.all([
    need(store.getAccount(accountId)),
    requireConversation(store, accountId, conversationId),
    need(store.getMessage(accountId, conversationId, messageId)),
  ]);
  const next: Message = {
    ...prev,
    ...(input.content !== undefined ? { content: input.content } : {}),
    ...(input.content_attributes !== undefined ? { content_attributes: input.content_attributes } : {}),
    ...(added.length ? { attachments: [...prev.attachments, ...added] } : {}),
  };
  if (JSON.stringify(next) === JSON.stringify(prev)) return withAttachmentUrls(prev, signer);
  const updated: Message = { ...next, updated_at: Math.max(secondsOf(now), prev.updated_at) };
  const inbox = await need(store.getInbox(accountId, conv.inbox_id));
  const rendered = await withAttachmentUrls(updated, signer);
  await store.replaceMessage(prev, updated, conv, [messageEvent("message_updated", rendered, conv, inbox, account)]);
  return rendered;
}

export interface UpdateMessageInput {
  readonly content?: string | undefined;
  readonly content_attributes?: Record<string, unknown> | undefined;
}

export async function updateMessage(
  store: ConversationStore,
  accountId: number,
  conversationId: number,
  messageId: number,
  input: UpdateMessageInput,
  now: Date,
  files?: NewFiles,
): Promise<RenderedMessage> {
  const added = await storeNewFiles(store, accountId, conversationId, files);
  // Read again and re-applied on fresh state when a concurrent update won the race.
  return retryOnStale(() => updateMessageOnce(store, accountId, conversationId, messageId, input, now, added, files?.store));
}

export async function listMessages(store: ConversationStore, accountId: number, conversationId: number, req: PageRequest): Promise<Listing<Message>> {
  const conv = await requireConversation(store, accountId, conversationId);
  const page = await store.listMessages(accountId, conversationId, req);
  return { meta: pageMeta(conv.messages_count, req, page), items: page.items };
}
