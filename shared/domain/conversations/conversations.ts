/** Conversations: create, show, list (with the counters of the filter), meta counters, update. */
import type { DomainEvent } from "../../events/outbox.ts";
import { ValidationError } from "../../errors.ts";
import { pageMeta, type PageMeta, type PageRequest, type Listing } from "../paging.ts";
import { dayOf, type ReportIncrement } from "../reports.ts";
import { applyChange, countedMessage, need, presence, requireConversation, secondsOf } from "./changes.ts";
import { newMessage } from "./messages.ts";
import type { Conversation, ConversationChange, ConversationFilters, ConversationStore, Message, MetaCounts, Priority, Status } from "./model.ts";
import { conversationEvent, conversationView, hydrate, messageEvent, userSender, viewOf, type ConversationView } from "./views.ts";
import { retryOnStale } from "../retry.ts";

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
): Promise<Listing<ConversationView, MetaCounts & PageMeta>> {
  const [page, counts] = await Promise.all([store.listConversations(accountId, filters, req), store.metaCounts(accountId, filters)]);
  const count = { me: counts.mine_count, assigned: counts.assigned_count, unassigned: counts.unassigned_count, all: counts.all_count }[filters.assigneeType];
  return { meta: { ...counts, ...pageMeta(count, req, page) }, items: await hydrate(store, page.items) };
}

export async function conversationsMeta(store: ConversationStore, accountId: number, filters: Omit<ConversationFilters, "assigneeType">): Promise<MetaCounts> {
  return store.metaCounts(accountId, filters);
}

export interface UpdateConversationInput {
  readonly priority?: Priority | null | undefined;
  readonly custom_attributes?: Record<string, unknown> | undefined;
  readonly additional_attributes?: Record<string, unknown> | undefined;
}

async function updateConversationOnce(store: ConversationStore, accountId: number, id: number, input: UpdateConversationInput, now: Date): Promise<ConversationView> {
  const prev = await requireConversation(store, accountId, id);
  const change: ConversationChange = {
    ...(input.priority !== undefined ? { priority: input.priority } : {}),
    ...(input.custom_attributes !== undefined ? { custom_attributes: input.custom_attributes } : {}),
    ...(input.additional_attributes !== undefined ? { additional_attributes: input.additional_attributes } : {}),
  };
  return (await applyChange(store, prev, change, now)).view;
}

/** updateConversation, read again and re-applied on fresh state when a concurrent update won the race. */
export const updateConversation = (...args: Parameters<typeof updateConversationOnce>) => retryOnStale(() => updateConversationOnce(...args));
