/**
 * What the conversation use cases share: lookups that answer 404, the counter deltas of one
 * conversation, and the one path by which a conversation changes (its events, counters, reports).
 */
import { changedAttributes } from "../contacts.ts";
import { NotFound } from "../../errors.ts";
import type { DomainEvent } from "../../events/outbox.ts";
import type { ReportIncrement } from "../reports.ts";
import type { Conversation, ConversationChange, ConversationStore, CounterDelta, Message } from "./model.ts";
import { conversationEvent, viewOf, type ConversationView } from "./views.ts";

export const secondsOf = (now: Date) => Math.floor(now.getTime() / 1000);

export async function need<T>(p: Promise<T | undefined>): Promise<T> {
  const v = await p;
  if (v === undefined) throw new NotFound();
  return v;
}

export async function requireConversation(store: ConversationStore, accountId: number, id: number): Promise<Conversation> {
  return need(store.getConversation(accountId, id));
}

/** +1 / -1 of one conversation at its (status, inbox, assignee). */
export function presence(conv: Pick<Conversation, "status" | "inbox_id" | "assignee_id">, by: 1 | -1): CounterDelta {
  return {
    status: conv.status,
    inboxId: conv.inbox_id,
    all: by,
    assigned: conv.assignee_id ? by : 0,
    assignee: conv.assignee_id ? { userId: conv.assignee_id, by } : null,
  };
}

export const countedMessage = (m: Pick<Message, "message_type" | "private">) => !m.private && (m.message_type === "incoming" || m.message_type === "outgoing");

/** Writes a change of the conversation with its events and counter moves; an empty change writes nothing. */
export async function applyChange(
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
