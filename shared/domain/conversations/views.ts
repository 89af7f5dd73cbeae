/** What a conversation and a message look like in replies and in event payloads. */
import { accountRef, type Account } from "../accounts.ts";
import { contactRef, type ChangedAttributes, type Contact } from "../contacts.ts";
import type { Inbox } from "../inboxes.ts";
import type { DomainEvent } from "../../events/outbox.ts";
import { MESSAGE_TYPE_CODES, type Conversation, type ConversationStore, type Message, type Sender, type User } from "./model.ts";

export const userSender = (u: User): Sender => ({ id: u.id, name: u.name, type: "user", email: u.email });
export const contactSender = (c: Contact): Sender => ({ id: c.id, name: c.name, type: "contact", email: c.email, thumbnail: c.thumbnail });
/** An agent as Chatwoot shows one (available_name: the display name; confirmed: a signed-up user). */
export const userRef = (u: User, accountId?: number) => ({
  id: u.id,
  name: u.name,
  available_name: u.name,
  email: u.email,
  type: "user" as const,
  confirmed: true,
  ...(accountId !== undefined ? { account_id: accountId } : {}),
});

/** A message as replies show it (Chatwoot's REST shape): its type as Chatwoot's integer code. */
export function messageView<M extends Message>(m: M): Omit<M, "message_type"> & { message_type: number } {
  return { ...m, message_type: MESSAGE_TYPE_CODES[m.message_type] };
}

/** The conversation as replies show it: with its contact (meta.sender), assignee and last message. */
export function conversationView(conv: Conversation, contact: Contact | undefined, assignee: User | undefined) {
  const { last_message, messages_count: _m, ...rest } = conv;
  return {
    ...rest,
    // No activity messages are written, so the last non-activity message is the last message.
    last_non_activity_message: last_message ? messageView(last_message) : null,
    timestamp: conv.last_activity_at,
    contact_last_seen_at: null,
    agent_last_seen_at: null,
    unread_count: 0,
    muted: false,
    can_reply: true,
    labels: [] as string[],
    // Chatwoot leaves `assignee` out of meta when nobody is assigned.
    meta: {
      sender: contact ? contactRef(contact) : null,
      ...(assignee ? { assignee: userRef(assignee, conv.account_id) } : {}),
    } as { sender: ReturnType<typeof contactRef> | null; assignee?: ReturnType<typeof userRef> },
    messages: last_message ? [messageView(last_message)] : [],
  };
}
export type ConversationView = ReturnType<typeof conversationView>;

/** The view without what Chatwoot's event data leaves out (the last non-activity message, which may be a note). */
function eventData(view: ConversationView): Omit<ConversationView, "last_non_activity_message"> {
  const { last_non_activity_message: _l, ...data } = view;
  return data;
}

export function conversationEvent(
  event: "conversation_created" | "conversation_updated" | "conversation_status_changed",
  view: ConversationView,
  account: Account,
  changed?: ChangedAttributes,
): DomainEvent {
  return {
    event,
    accountId: view.account_id,
    inboxId: view.inbox_id,
    payload: {
      ...eventData(view),
      event,
      id: String(view.id),
      contact: view.meta.sender ?? {},
      // Chatwoot's event data always has `meta.assignee` (null when nobody is assigned), unlike its replies.
      meta: { ...view.meta, assignee: view.meta.assignee ?? null },
      // As Chatwoot's event data: the last message only when it is part of the chat (never a private note or an activity).
      messages: view.messages.filter((m) => !m.private && m.message_type !== MESSAGE_TYPE_CODES.activity),
      account: accountRef(account),
      ...(changed ? { changed_attributes: changed } : {}),
    },
  };
}

export function messageEvent(event: "message_created" | "message_updated", m: Message, conv: Conversation, inbox: Pick<Inbox, "id" | "name">, account: Account): DomainEvent {
  return {
    event,
    accountId: m.account_id,
    inboxId: m.inbox_id,
    payload: {
      ...m,
      event,
      id: String(m.id),
      conversation: {
        id: conv.id,
        status: conv.status,
        inbox_id: conv.inbox_id,
        contact_id: conv.contact_id,
        assignee_id: conv.assignee_id,
        priority: conv.priority,
        created_at: conv.created_at,
      },
      inbox: { id: inbox.id, name: inbox.name },
      account: accountRef(account),
    },
  };
}

/** The views of conversations of one account, their contacts and assignees read in two batches. */
export async function hydrate(store: ConversationStore, convs: readonly Conversation[]): Promise<ConversationView[]> {
  if (convs.length === 0) return [];
  const accountId = convs[0]!.account_id;
  const assigneeIds = [...new Set(convs.flatMap((c) => (c.assignee_id ? [c.assignee_id] : [])))];
  const [contacts, users] = await Promise.all([
    store.getContacts(accountId, [...new Set(convs.map((c) => c.contact_id))]),
    assigneeIds.length ? store.getUsers(assigneeIds) : Promise.resolve([]),
  ]);
  const contactById = new Map(contacts.map((c) => [c.id, c]));
  const userById = new Map(users.map((u) => [u.id, u]));
  return convs.map((c) => conversationView(c, contactById.get(c.contact_id), c.assignee_id ? userById.get(c.assignee_id) : undefined));
}

export const viewOf = async (store: ConversationStore, conv: Conversation) => (await hydrate(store, [conv]))[0]!;
