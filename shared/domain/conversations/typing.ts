/** Typing indicators: an event only, nothing is stored. */
import { requireConversation } from "./changes.ts";
import type { ConversationStore } from "./model.ts";
import { userRef, viewOf } from "./views.ts";

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
