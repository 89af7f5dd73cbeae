/** The customer-visible transcript of a conversation, as JSON lines or as text. */
import { requireConversation } from "./changes.ts";
import type { Attachment, ConversationStore, MessageType, Sender } from "./model.ts";
import { withAttachmentUrls, type AttachmentFiles } from "./attachments.ts";

export interface TranscriptLine {
  readonly id: number;
  readonly content: string | null;
  readonly message_type: MessageType;
  readonly sender: Sender | null;
  readonly attachments: readonly Attachment[];
  readonly created_at: number;
}

/** The customer-visible transcript: private notes are left out. */
export async function transcript(
  store: ConversationStore,
  accountId: number,
  conversationId: number,
  files?: Pick<AttachmentFiles, "blobs" | "urlTtlSeconds">,
): Promise<{ conversation_id: number; messages: TranscriptLine[] }> {
  await requireConversation(store, accountId, conversationId);
  const visible = (await store.allMessages(accountId, conversationId)).filter((m) => !m.private);
  const messages = await Promise.all(
    visible.map(async (m) => ({
      id: m.id,
      content: m.content,
      message_type: m.message_type,
      sender: m.sender,
      attachments: (await withAttachmentUrls(m, files)).attachments,
      created_at: m.created_at,
    })),
  );
  return { conversation_id: conversationId, messages };
}

export function transcriptText(t: { conversation_id: number; messages: readonly TranscriptLine[] }): string {
  const lines = t.messages.map((m) => {
    const when = new Date(m.created_at * 1000).toISOString().replace("T", " ").slice(0, 19);
    const who = m.sender ? `${m.sender.name || (m.sender.type === "contact" ? "Contact" : "Agent")}` : "System";
    const files = m.attachments.map((a) => ` [${a.file_type}: ${a.file_name}]`).join("");
    return `[${when} UTC] ${who} (${m.message_type}): ${m.content ?? ""}${files}`;
  });
  return [`Conversation #${t.conversation_id}`, ...lines, ""].join("\n");
}
