/**
 * Conversations and messages: the records, the meta counters and the store port. Every change
 * computes, beside its events, the deltas of the conversations/meta counters and of the per-day
 * report counters, and hands all of it to the store, which writes it in ONE transaction.
 */
import type { Account } from "../accounts.ts";
import type { Contact } from "../contacts.ts";
import type { Inbox } from "../inboxes.ts";
import type { DomainEvent } from "../../events/outbox.ts";
import type { Page, PageRequest } from "../paging.ts";
import type { ReportIncrement } from "../reports.ts";
import type { Role } from "../identity.ts";

export const STATUSES = ["open", "resolved", "pending", "snoozed"] as const;
export type Status = (typeof STATUSES)[number];
export const PRIORITIES = ["urgent", "high", "medium", "low"] as const;
export type Priority = (typeof PRIORITIES)[number];
export type MessageType = "incoming" | "outgoing" | "activity" | "template";
/** Chatwoot's integer for each message type, what its replies carry (its webhook payloads carry the name). */
/** The message content types Chatwoot's message create takes (interactive messages carry content_attributes). */
export const MESSAGE_CONTENT_TYPES = ["text", "input_email", "cards", "input_select", "form", "article"] as const;
export type MessageContentType = (typeof MESSAGE_CONTENT_TYPES)[number];

export const MESSAGE_TYPE_CODES = { incoming: 0, outgoing: 1, activity: 2, template: 3 } as const satisfies Record<MessageType, number>;

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

/** A file of a message; replies add Chatwoot's message_id, account_id, data_url and thumb_url (attachments.ts). */
export interface Attachment {
  readonly id: number;
  readonly file_type: string;
  readonly content_type: string;
  readonly file_name: string;
  readonly file_size: number;
  readonly blob_key: string;
  /** The file's key in the uploads bucket (absent on records older than it). */
  readonly object_key?: string;
  readonly extension?: string | null;
  readonly message_id?: number;
  readonly account_id?: number;
  readonly data_url?: string;
  readonly thumb_url?: string;
}

export interface Message {
  readonly id: number;
  readonly account_id: number;
  readonly conversation_id: number;
  readonly inbox_id: number;
  readonly content: string | null;
  readonly message_type: MessageType;
  readonly content_type: MessageContentType;
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
  /** The account, the conversation and the given users in one strongly consistent read. */
  getConversationContext(accountId: number, conversationId: number, userIds: readonly number[]): Promise<{ account?: Account; conversation?: Conversation; users: User[] }>;
  /** An inbox and, when asked, a contact in one read. */
  getInboxAndContact(accountId: number, inboxId: number, contactId?: number): Promise<{ inbox?: Inbox; contact?: Contact }>;
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
