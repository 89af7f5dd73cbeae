/** Assigning a conversation to a member of the account, or unassigning it. */
import { ValidationError } from "../../errors.ts";
import { applyChange, requireConversation } from "./changes.ts";
import type { ConversationStore } from "./model.ts";
import { userRef } from "./views.ts";
import { retryOnStale } from "../retry.ts";

async function assignConversationOnce(store: ConversationStore, accountId: number, id: number, assigneeId: number | null, now: Date) {
  const [prev, role, users] = await Promise.all([
    requireConversation(store, accountId, id),
    assigneeId ? store.findRole(accountId, assigneeId) : Promise.resolve(undefined),
    assigneeId ? store.getUsers([assigneeId]) : Promise.resolve([]),
  ]);
  const user = users[0];
  if (assigneeId && (!role || !user)) throw ValidationError.field("assignee_id", "invalid", "is not a member of this account");
  await applyChange(store, prev, { assignee_id: assigneeId }, now);
  return user ? { ...userRef(user, accountId), role } : null;
}

/** assignConversation, read again and re-applied on fresh state when a concurrent update won the race. */
export const assignConversation = (...args: Parameters<typeof assignConversationOnce>) => retryOnStale(() => assignConversationOnce(...args));
