/**
 * Conversations and messages (API.md; issue 4). Every change computes, beside its events, the
 * deltas of the conversations/meta counters and of the per-day report counters, and hands all of
 * it to the store, which writes it in ONE transaction.
 */
import { accountRef, type Account } from "./accounts.ts";
import { changedAttributes, contactRef, type ChangedAttributes, type Contact } from "./contacts.ts";
import { NotFound, ValidationError } from "./errors.ts";
import type { Inbox } from "./inboxes.ts";
import type { DomainEvent } from "../events/outbox.ts";
import { pageMeta, type Page, type PageMeta, type PageRequest } from "./paging.ts";
import { dayOf, type ReportIncrement } from "./reports.ts";
import type { Role } from "./identity.ts";

export const STATUSES = ["open", "resolved", "pending", "snoozed"] as const;
export type Status = (typeof STATUSES)[number];
export const PRIORITIES = ["urgent", "high", "medium", "low"] as const;
export type Priority = (typeof PRIORITIES)[number];
export type MessageType = "incoming" | "outgoing" | "activity" | "template";

export interface User {
  readonly id: number;
  readonly name: string;
  readonly email: string;
}

export interface Sender {
  readonly id: number;
  readonly name: string;
  readonly type: "contact" | "user";
  readonly email?: string | null;
  readonly thumbnail?: string;
}

export interface Attachment {
  readonly id: number;
  readonly file_type: string;
  readonly content_type: string;
  readonly file_name: string;
  readonly file_size: number;
  readonly blob_key: string;
}

export interface Message {
  readonly id: number;
  readonly account_id: number;
  readonly conversation_id: number;
  readonly inbox_id: number;
  readonly content: string | null;
  readonly message_type: MessageType;
  readonly content_type: "text";
  readonly content_attributes: Record<string, unknown>;
  readonly private: boolean;
  readonly source_id: string | null;
  readonly status: "sent";
  readonly sender: Sender | null;
  readonly attachments: readonly Attachment[];
  readonly created_at: number;
  readonly updated_at: number;
}

export interface Conversation {
  readonly id: number;
  readonly account_id: number;
  readonly inbox_id: number;
  readonly contact_id: number;
  readonly status: Status;
  readonly priority: Priority | null;
  readonly assignee_id: number | null;
  readonly snoozed_until: number | null;
  readonly custom_attributes: Record<string, unknown>;
  readonly additional_attributes: Record<string, unknown>;
  readonly messages_count: number;
  readonly last_message: Message | null;
  readonly first_reply_created_at: number | null;
  readonly created_at: number;
  readonly updated_at: number;
  readonly last_activity_at: number;
}

/** A change of the meta counters at (status, inbox): all, assigned and per-assignee. */
export interface CounterDelta {
  readonly status: Status;
  readonly inboxId: number;
  readonly all: number;
  readonly assigned: number;
  readonly assignee: { readonly userId: number; readonly by: number } | null;
}

export interface Effects {
  readonly counters: readonly CounterDelta[];
  readonly reports: readonly ReportIncrement[];
  /** Contact whose last_activity_at becomes the given time. */
  readonly touchContact?: { readonly contactId: number; readonly at: number } | undefined;
}

export interface MetaCounts {
  readonly mine_count: number;
  readonly assigned_count: number;
  readonly unassigned_count: number;
  readonly all_count: number;
}

export type AssigneeType = "me" | "unassigned" | "assigned" | "all";

export interface ConversationFilters {
  readonly status: Status | "all";
  readonly inboxId?: number | undefined;
  readonly assigneeType: AssigneeType;
  readonly userId: number;
}

/** Fields a conversation change may set; the store conditions the write on `status`/`assignee_id`. */
export type ConversationChange = Partial<Pick<Conversation, "status" | "priority" | "assignee_id" | "snoozed_until" | "custom_attributes" | "additional_attributes" | "updated_at">>;

export interface ConversationStore {
  getAccount(accountId: number): Promise<Account | undefined>;
  nextId(accountId: number, name: "conversation" | "message"): Promise<number>;
  getInbox(accountId: number, inboxId: number): Promise<Inbox | undefined>;
  getContact(accountId: number, contactId: number): Promise<Contact | undefined>;
  getContacts(accountId: number, contactIds: readonly number[]): Promise<Contact[]>;
  getUsers(userIds: readonly number[]): Promise<User[]>;
  findRole(accountId: number, userId: number): Promise<Role | undefined>;
  getAttachments(accountId: number, blobIds: readonly number[]): Promise<Attachment[]>;

  insertConversation(conv: Conversation, message: Message | undefined, effects: Effects, events: readonly DomainEvent[]): Promise<void>;
  getConversation(accountId: number, conversationId: number): Promise<Conversation | undefined>;
  listConversations(accountId: number, filters: ConversationFilters, req: PageRequest): Promise<Page<Conversation>>;
  /** Conditional on the stored status and assignee still being `prev`'s (else 409). */
  changeConversation(prev: Conversation, change: ConversationChange, effects: Effects, events: readonly DomainEvent[]): Promise<void>;
  metaCounts(accountId: number, filters: Omit<ConversationFilters, "assigneeType">): Promise<MetaCounts>;

  /**
   * Writes the message and bumps the conversation (count, last message, activity, first reply);
   * with `reopen`, its status and updated_at change too (an incoming message on a resolved or
   * snoozed conversation), conditional on the status read.
   */
  insertMessage(
    conv: Conversation,
    message: Message,
    firstReply: boolean,
    effects: Effects,
    events: readonly DomainEvent[],
    reopen?: { readonly status: Status; readonly updatedAt: number },
  ): Promise<void>;
  getMessage(accountId: number, conversationId: number, messageId: number): Promise<Message | undefined>;
  /** Conditional on `prev` being unchanged; also refreshes the conversation's last message when it is this one. */
  replaceMessage(prev: Message, next: Message, conv: Conversation, events: readonly DomainEvent[]): Promise<void>;
  listMessages(accountId: number, conversationId: number, req: PageRequest): Promise<Page<Message>>;
  allMessages(accountId: number, conversationId: number): Promise<Message[]>;

  /** Writes only the outbox (typing events are transient). */
  emit(events: readonly DomainEvent[]): Promise<void>;
}

// ---------------------------------------------------------------- views and payloads

export const userSender = (u: User): Sender => ({ id: u.id, name: u.name, type: "user", email: u.email });
export const contactSender = (c: Contact): Sender => ({ id: c.id, name: c.name, type: "contact", email: c.email, thumbnail: c.thumbnail });
const userRef = (u: User) => ({ id: u.id, name: u.name, email: u.email, type: "user" as const });

/** V of API.md: the conversation with its contact (meta.sender), assignee and last message. */
export function conversationView(conv: Conversation, contact: Contact | undefined, assignee: User | undefined) {
  const { last_message, first_reply_created_at: _f, messages_count: _m, ...rest } = conv;
  return {
    ...rest,
    timestamp: conv.last_activity_at,
    contact_last_seen_at: null,
    agent_last_seen_at: null,
    unread_count: 0,
    muted: false,
    can_reply: true,
    labels: [] as string[],
    meta: {
      sender: contact ? contactRef(contact) : null,
      assignee: assignee ? userRef(assignee) : null,
    },
    messages: last_message ? [last_message] : [],
  };
}
export type ConversationView = ReturnType<typeof conversationView>;

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
      ...view,
      event,
      id: String(view.id),
      contact: view.meta.sender ?? {},
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

// ---------------------------------------------------------------- helpers

const secondsOf = (now: Date) => Math.floor(now.getTime() / 1000);

async function need<T>(p: Promise<T | undefined>): Promise<T> {
  const v = await p;
  if (v === undefined) throw new NotFound();
  return v;
}

export async function requireConversation(store: ConversationStore, accountId: number, id: number): Promise<Conversation> {
  return need(store.getConversation(accountId, id));
}

async function hydrate(store: ConversationStore, convs: readonly Conversation[]): Promise<ConversationView[]> {
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

const viewOf = async (store: ConversationStore, conv: Conversation) => (await hydrate(store, [conv]))[0]!;

/** +1 / -1 of one conversation at its (status, inbox, assignee). */
function presence(conv: Pick<Conversation, "status" | "inbox_id" | "assignee_id">, by: 1 | -1): CounterDelta {
  return {
    status: conv.status,
    inboxId: conv.inbox_id,
    all: by,
    assigned: conv.assignee_id ? by : 0,
    assignee: conv.assignee_id ? { userId: conv.assignee_id, by } : null,
  };
}

const countedMessage = (m: Pick<Message, "message_type" | "private">) => !m.private && (m.message_type === "incoming" || m.message_type === "outgoing");

// ---------------------------------------------------------------- conversations

export interface CreateConversationInput {
  readonly inbox_id: number;
  readonly contact_id: number;
  readonly status?: Status | undefined;
  readonly assignee_id?: number | null | undefined;
  readonly priority?: Priority | null | undefined;
  readonly custom_attributes?: Record<string, unknown> | undefined;
  readonly additional_attributes?: Record<string, unknown> | undefined;
  readonly message?: { readonly content: string; readonly private?: boolean | undefined } | undefined;
}

export async function createConversation(store: ConversationStore, accountId: number, userId: number, input: CreateConversationInput, now: Date): Promise<ConversationView> {
  const [account, inbox, contact, user, assigneeRole] = await Promise.all([
    need(store.getAccount(accountId)),
    store.getInbox(accountId, input.inbox_id),
    store.getContact(accountId, input.contact_id),
    store.getUsers([userId]),
    input.assignee_id ? store.findRole(accountId, input.assignee_id) : Promise.resolve(undefined),
  ]);
  if (!inbox) throw ValidationError.field("inbox_id", "invalid", "is not an inbox of this account");
  if (!contact) throw ValidationError.field("contact_id", "invalid", "is not a contact of this account");
  if (input.assignee_id && !assigneeRole) throw ValidationError.field("assignee_id", "invalid", "is not a member of this account");
  // Allocated after validation so that rejected requests leave no gaps in the display ids.
  const id = await store.nextId(accountId, "conversation");
  const ts = secondsOf(now);
  let conv: Conversation = {
    id,
    account_id: accountId,
    inbox_id: inbox.id,
    contact_id: contact.id,
    status: input.status ?? "open",
    priority: input.priority ?? null,
    assignee_id: input.assignee_id ?? null,
    snoozed_until: null,
    custom_attributes: input.custom_attributes ?? {},
    additional_attributes: input.additional_attributes ?? {},
    messages_count: 0,
    last_message: null,
    first_reply_created_at: null,
    created_at: ts,
    updated_at: ts,
    last_activity_at: ts,
  };
  const reportFields: ReportIncrement["fields"] = { conversations_count: 1 };
  let message: Message | undefined;
  const events: DomainEvent[] = [];
  if (input.message) {
    const sender = user[0] ? userSender(user[0]) : null;
    message = newMessage(conv, await store.nextId(accountId, "message"), { content: input.message.content, message_type: "outgoing", private: input.message.private ?? false }, sender, [], ts);
    // An agent-initiated conversation: its opening message is no "first response" to time.
    conv = { ...conv, messages_count: 1, last_message: message, first_reply_created_at: message.private ? null : ts };
    if (countedMessage(message)) reportFields.outgoing_messages_count = 1;
  }
  const view = conversationView(conv, contact, input.assignee_id ? (await store.getUsers([input.assignee_id]))[0] : undefined);
  events.push(conversationEvent("conversation_created", view, account));
  if (message) events.push(messageEvent("message_created", message, conv, inbox, account));
  await store.insertConversation(conv, message, {
    counters: [presence(conv, 1)],
    reports: [{ day: dayOf(ts), inboxId: inbox.id, fields: reportFields }],
    touchContact: { contactId: contact.id, at: ts },
  }, events);
  return view;
}

export async function showConversation(store: ConversationStore, accountId: number, id: number): Promise<ConversationView> {
  return viewOf(store, await requireConversation(store, accountId, id));
}

export async function listConversations(
  store: ConversationStore,
  accountId: number,
  filters: ConversationFilters,
  req: PageRequest,
): Promise<{ data: { meta: MetaCounts & PageMeta; payload: ConversationView[] } }> {
  const [page, counts] = await Promise.all([store.listConversations(accountId, filters, req), store.metaCounts(accountId, filters)]);
  const count = { me: counts.mine_count, assigned: counts.assigned_count, unassigned: counts.unassigned_count, all: counts.all_count }[filters.assigneeType];
  return { data: { meta: { ...counts, ...pageMeta(count, req, page) }, payload: await hydrate(store, page.items) } };
}

export async function conversationsMeta(store: ConversationStore, accountId: number, filters: Omit<ConversationFilters, "assigneeType">): Promise<{ meta: MetaCounts }> {
  return { meta: await store.metaCounts(accountId, filters) };
}

async function applyChange(
  store: ConversationStore,
  prev: Conversation,
  change: ConversationChange,
  now: Date,
  extra: { reports?: ReportIncrement[]; statusEvent?: boolean } = {},
): Promise<{ next: Conversation; view: ConversationView }> {
  const next: Conversation = { ...prev, ...change, updated_at: Math.max(secondsOf(now), prev.updated_at) };
  const fields = (Object.keys(change) as (keyof ConversationChange)[]).filter((f) => f !== "updated_at");
  const changed = changedAttributes(prev, next, fields);
  if (changed.length === 0) return { next: prev, view: await viewOf(store, prev) };
  const [account, view] = await Promise.all([need(store.getAccount(prev.account_id)), viewOf(store, next)]);
  const moved = prev.status !== next.status || prev.assignee_id !== next.assignee_id;
  const events: DomainEvent[] = [];
  const statusChange = changed.filter((c) => "status" in c);
  if (extra.statusEvent && statusChange.length) events.push(conversationEvent("conversation_status_changed", view, account, statusChange));
  events.push(conversationEvent("conversation_updated", view, account, changed));
  await store.changeConversation(prev, { ...change, updated_at: next.updated_at }, { counters: moved ? [presence(prev, -1), presence(next, 1)] : [], reports: extra.reports ?? [] }, events);
  return { next, view };
}

export interface UpdateConversationInput {
  readonly priority?: Priority | null | undefined;
  readonly custom_attributes?: Record<string, unknown> | undefined;
  readonly additional_attributes?: Record<string, unknown> | undefined;
}

export async function updateConversation(store: ConversationStore, accountId: number, id: number, input: UpdateConversationInput, now: Date): Promise<ConversationView> {
  const prev = await requireConversation(store, accountId, id);
  const change: ConversationChange = {
    ...(input.priority !== undefined ? { priority: input.priority } : {}),
    ...(input.custom_attributes !== undefined ? { custom_attributes: input.custom_attributes } : {}),
    ...(input.additional_attributes !== undefined ? { additional_attributes: input.additional_attributes } : {}),
  };
  return (await applyChange(store, prev, change, now)).view;
}

export async function toggleStatus(
  store: ConversationStore,
  accountId: number,
  id: number,
  input: { status?: Status | undefined; snoozed_until?: number | undefined },
  now: Date,
): Promise<{ payload: { success: true; current_status: Status; conversation_id: number } }> {
  const prev = await requireConversation(store, accountId, id);
  // Without a status, Chatwoot toggles between open and resolved.
  const status = input.status ?? (prev.status === "open" ? "resolved" : "open");
  const ts = secondsOf(now);
  const reports: ReportIncrement[] =
    status === "resolved" && prev.status !== "resolved"
      ? [{ day: dayOf(ts), inboxId: prev.inbox_id, fields: { resolutions_count: 1, resolution_sum: Math.max(0, ts - prev.created_at), resolution_count: 1 } }]
      : [];
  const { next } = await applyChange(store, prev, { status, snoozed_until: status === "snoozed" ? (input.snoozed_until ?? null) : null }, now, { reports, statusEvent: true });
  return { payload: { success: true, current_status: next.status, conversation_id: next.id } };
}

export async function assignConversation(store: ConversationStore, accountId: number, id: number, assigneeId: number | null, now: Date) {
  const [prev, role, users] = await Promise.all([
    requireConversation(store, accountId, id),
    assigneeId ? store.findRole(accountId, assigneeId) : Promise.resolve(undefined),
    assigneeId ? store.getUsers([assigneeId]) : Promise.resolve([]),
  ]);
  const user = users[0];
  if (assigneeId && (!role || !user)) throw ValidationError.field("assignee_id", "invalid", "is not a member of this account");
  await applyChange(store, prev, { assignee_id: assigneeId }, now);
  return user ? { ...userRef(user), role } : null;
}

export async function toggleTyping(store: ConversationStore, accountId: number, id: number, userId: number, input: { typing_status: "on" | "off"; is_private?: boolean | undefined }) {
  const [conv, users] = await Promise.all([requireConversation(store, accountId, id), store.getUsers([userId])]);
  const view = await viewOf(store, conv);
  const user = users[0];
  const event = input.typing_status === "on" ? "conversation_typing_on" : "conversation_typing_off";
  await store.emit([
    {
      event,
      accountId,
      inboxId: conv.inbox_id,
      payload: { event, id: String(conv.id), user: user ? userRef(user) : { id: userId, name: "", type: "user" }, conversation: view, is_private: input.is_private ?? false },
    },
  ]);
}

// ---------------------------------------------------------------- messages

function newMessage(
  conv: Conversation,
  id: number,
  input: { content: string | null; message_type: MessageType; private: boolean; content_attributes?: Record<string, unknown> | undefined; source_id?: string | null | undefined },
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
    content_type: "text",
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
  readonly content_attributes?: Record<string, unknown> | undefined;
  readonly attachment_ids?: readonly number[] | undefined;
  readonly source_id?: string | undefined;
}

export async function createMessage(store: ConversationStore, accountId: number, conversationId: number, userId: number, input: CreateMessageInput, now: Date): Promise<Message> {
  const type = input.message_type ?? "outgoing";
  const convP = requireConversation(store, accountId, conversationId);
  // The inbox and contact reads start as soon as the conversation is known, beside the others.
  const [account, conv, users, id, attachments, [inbox, contact]] = await Promise.all([
    need(store.getAccount(accountId)),
    convP,
    type === "outgoing" ? store.getUsers([userId]) : Promise.resolve([]),
    store.nextId(accountId, "message"),
    input.attachment_ids?.length ? store.getAttachments(accountId, input.attachment_ids) : Promise.resolve([]),
    convP.then((c) => Promise.all([need(store.getInbox(accountId, c.inbox_id)), type === "incoming" ? store.getContact(accountId, c.contact_id) : Promise.resolve(undefined)])),
  ]);
  if (input.attachment_ids?.length && attachments.length !== new Set(input.attachment_ids).size) {
    throw ValidationError.field("attachment_ids", "invalid", "contains an unknown upload");
  }
  if (!input.content && attachments.length === 0) throw ValidationError.field("content", "blank", "can't be blank");
  const sender = type === "incoming" ? (contact ? contactSender(contact) : null) : users[0] ? userSender(users[0]) : null;
  const ts = secondsOf(now);
  const message = newMessage(conv, id, { content: input.content ?? null, message_type: type, private: input.private ?? false, content_attributes: input.content_attributes, source_id: input.source_id }, sender, attachments, ts);
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
    [...statusEvents, messageEvent("message_created", message, after, inbox, account)],
    reopen,
  );
  return message;
}

export async function updateMessage(
  store: ConversationStore,
  accountId: number,
  conversationId: number,
  messageId: number,
  input: { content?: string | undefined; content_attributes?: Record<string, unknown> | undefined },
  now: Date,
): Promise<Message> {
  const [account, conv, prev] = await Promise.all([
    need(store.getAccount(accountId)),
    requireConversation(store, accountId, conversationId),
    need(store.getMessage(accountId, conversationId, messageId)),
  ]);
  const next: Message = {
    ...prev,
    ...(input.content !== undefined ? { content: input.content } : {}),
    ...(input.content_attributes !== undefined ? { content_attributes: input.content_attributes } : {}),
  };
  if (JSON.stringify(next) === JSON.stringify(prev)) return prev;
  const updated: Message = { ...next, updated_at: Math.max(secondsOf(now), prev.updated_at) };
  const inbox = await need(store.getInbox(accountId, conv.inbox_id));
  await store.replaceMessage(prev, updated, conv, [messageEvent("message_updated", updated, conv, inbox, account)]);
  return updated;
}

export async function listMessages(store: ConversationStore, accountId: number, conversationId: number, req: PageRequest): Promise<{ meta: PageMeta; payload: Message[] }> {
  const conv = await requireConversation(store, accountId, conversationId);
  const page = await store.listMessages(accountId, conversationId, req);
  return { meta: pageMeta(conv.messages_count, req, page), payload: page.items };
}

// ---------------------------------------------------------------- transcript

export interface TranscriptLine {
  readonly id: number;
  readonly content: string | null;
  readonly message_type: MessageType;
  readonly sender: Sender | null;
  readonly created_at: number;
}

/** The customer-visible transcript: private notes are left out. */
export async function transcript(store: ConversationStore, accountId: number, conversationId: number): Promise<{ conversation_id: number; messages: TranscriptLine[] }> {
  await requireConversation(store, accountId, conversationId);
  const messages = (await store.allMessages(accountId, conversationId))
    .filter((m) => !m.private)
    .map((m) => ({ id: m.id, content: m.content, message_type: m.message_type, sender: m.sender, created_at: m.created_at }));
  return { conversation_id: conversationId, messages };
}

export function transcriptText(t: { conversation_id: number; messages: readonly TranscriptLine[] }): string {
  const lines = t.messages.map((m) => {
    const when = new Date(m.created_at * 1000).toISOString().replace("T", " ").slice(0, 19);
    const who = m.sender ? `${m.sender.name || (m.sender.type === "contact" ? "Contact" : "Agent")}` : "System";
    return `[${when} UTC] ${who} (${m.message_type}): ${m.content ?? ""}`;
  });
  return [`Conversation #${t.conversation_id}`, ...lines, ""].join("\n");
}
