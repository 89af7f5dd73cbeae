/** Inboxes (channels): the first account resource. Ids are per-account integers. */
import { accountRef, type Account } from "./accounts.ts";
import { NotFound } from "./errors.ts";
import type { DomainEvent } from "../events/outbox.ts";
import { randomToken } from "./secrets.ts";
import { retryOnStale } from "./retry.ts";

export type ChannelKind = "api" | "web_widget";
export const CHANNEL_TYPES: Record<ChannelKind, string> = { api: "Channel::Api", web_widget: "Channel::WebWidget" };

export interface Inbox {
  readonly id: number;
  readonly account_id: number;
  readonly name: string;
  readonly channel_type: string;
  readonly website_url: string | null;
  /** Web-widget inboxes only: the public token the widget sends. */
  readonly website_token: string | null;
  readonly greeting_enabled: boolean;
  readonly greeting_message: string | null;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface InboxStore {
  getAccount(accountId: number): Promise<Account | undefined>;
  nextInboxId(accountId: number): Promise<number>;
  insertInbox(inbox: Inbox, events: readonly DomainEvent[]): Promise<void>;
  getInbox(accountId: number, inboxId: number): Promise<Inbox | undefined>;
  listInboxes(accountId: number): Promise<Inbox[]>;
  /** Writes `next` only if the stored inbox still has `prev.updated_at` (no lost update). */
  replaceInbox(prev: Inbox, next: Inbox, events: readonly DomainEvent[]): Promise<void>;
}

export interface CreateInboxInput {
  readonly name: string;
  readonly channel: { readonly type: ChannelKind; readonly website_url?: string | undefined };
  readonly greeting_enabled?: boolean | undefined;
  readonly greeting_message?: string | undefined;
}

export interface UpdateInboxInput {
  readonly name?: string | undefined;
  readonly channel?: { readonly website_url?: string | undefined } | undefined;
  readonly greeting_enabled?: boolean | undefined;
  readonly greeting_message?: string | null | undefined;
}

export function inboxPayload(event: "inbox_created" | "inbox_updated", inbox: Inbox, account: Account): DomainEvent {
  return {
    event,
    accountId: inbox.account_id,
    inboxId: inbox.id,
    payload: { ...inbox, event, id: String(inbox.id), account: accountRef(account) },
  };
}

async function requireAccount(store: InboxStore, accountId: number): Promise<Account> {
  const account = await store.getAccount(accountId);
  if (!account) throw new NotFound();
  return account;
}

export async function createInbox(store: InboxStore, accountId: number, input: CreateInboxInput, now: Date): Promise<Inbox> {
  const account = await requireAccount(store, accountId);
  const id = await store.nextInboxId(accountId);
  const ts = Math.floor(now.getTime() / 1000);
  const inbox: Inbox = {
    id,
    account_id: accountId,
    name: input.name,
    channel_type: CHANNEL_TYPES[input.channel.type],
    website_url: input.channel.website_url ?? null,
    website_token: input.channel.type === "web_widget" ? randomToken(18) : null,
    greeting_enabled: input.greeting_enabled ?? false,
    greeting_message: input.greeting_message ?? null,
    created_at: ts,
    updated_at: ts,
  };
  await store.insertInbox(inbox, [inboxPayload("inbox_created", inbox, account)]);
  return inbox;
}

export async function getInbox(store: InboxStore, accountId: number, inboxId: number): Promise<Inbox> {
  const inbox = await store.getInbox(accountId, inboxId);
  if (!inbox) throw new NotFound();
  return inbox;
}

/** Every inbox of the account. */
export async function listInboxes(store: InboxStore, accountId: number): Promise<Inbox[]> {
  return store.listInboxes(accountId);
}

async function updateInboxOnce(
  store: InboxStore,
  accountId: number,
  inboxId: number,
  input: UpdateInboxInput,
  now: Date,
): Promise<Inbox> {
  const [account, prev] = await Promise.all([requireAccount(store, accountId), getInbox(store, accountId, inboxId)]);
  const next: Inbox = {
    ...prev,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.channel?.website_url !== undefined ? { website_url: input.channel.website_url } : {}),
    ...(input.greeting_enabled !== undefined ? { greeting_enabled: input.greeting_enabled } : {}),
    ...(input.greeting_message !== undefined ? { greeting_message: input.greeting_message } : {}),
  };
  const changed = (Object.keys(next) as (keyof Inbox)[]).some((k) => next[k] !== prev[k]);
  if (!changed) return prev;
  const updated: Inbox = { ...next, updated_at: Math.max(Math.floor(now.getTime() / 1000), prev.updated_at) };
  await store.replaceInbox(prev, updated, [inboxPayload("inbox_updated", updated, account)]);
  return updated;
}

/** updateInbox, read again and re-applied on fresh state when a concurrent update won the race. */
export const updateInbox = (...args: Parameters<typeof updateInboxOnce>) => retryOnStale(() => updateInboxOnce(...args));
