/** Toggling a conversation's status (open, resolved, pending, snoozed); a resolution feeds the reports. */
import { dayOf, type ReportIncrement } from "../reports.ts";
import { applyChange, requireConversation, secondsOf } from "./changes.ts";
import type { Conversation, ConversationStore, Status } from "./model.ts";
import { retryOnStale } from "../retry.ts";

async function toggleStatusOnce(
  store: ConversationStore,
  accountId: number,
  id: number,
  input: { status?: Status | undefined; snoozed_until?: number | undefined },
  now: Date,
): Promise<Conversation> {
  const prev = await requireConversation(store, accountId, id);
  // Without a status, Chatwoot toggles between open and resolved.
  const status = input.status ?? (prev.status === "open" ? "resolved" : "open");
  const ts = secondsOf(now);
  const reports: ReportIncrement[] =
    status === "resolved" && prev.status !== "resolved"
      ? [{ day: dayOf(ts), inboxId: prev.inbox_id, fields: { resolutions_count: 1, resolution_sum: Math.max(0, ts - prev.created_at), resolution_count: 1 } }]
      : [];
  const { next } = await applyChange(store, prev, { status, snoozed_until: status === "snoozed" ? (input.snoozed_until ?? null) : null }, now, { reports, statusEvent: true });
  return next;
}

/** toggleStatus, read again and re-applied on fresh state when a concurrent update won the race. */
export const toggleStatus = (...args: Parameters<typeof toggleStatusOnce>) => retryOnStale(() => toggleStatusOnce(...args));
