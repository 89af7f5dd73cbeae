/** Inboxes (channels): the first account resource. Ids are per-account integers. */
import { accountRef, type Account } from "./accounts.ts";
import { NotFound } from "../errors.ts";
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

/** The inbox settings Chatwoot accepts on create and update, with its defaults. */
export interface InboxSettings {
  readonly enable_auto_assignment: boolean;
  readonly enable_email_collect: boolean;
  readonly csat_survey_enabled: boolean;
  readonly allow_messages_after_resolved: boolean;
  readonly working_hours_enabled: boolean;
  readonly timezone: string;
  readonly lock_to_single_conversation: boolean;
  /** Whose name replies go out under: the agent's (`friendly`) or the business's (`professional`). */
  readonly sender_name_type: "friendly" | "professional";
  readonly business_name: string | null;
  readonly out_of_office_message: string | null;
  /** Web widget channel. */
  readonly widget_color: string | null;
  readonly welcome_title: string | null;
  readonly welcome_tagline: string | null;
  /** API channel: where Chatwoot posts the inbox's events. */
  readonly webhook_url: string | null;
}

export const SETTING_DEFAULTS: InboxSettings = {
  enable_auto_assignment: true,
  enable_email_collect: true,
  csat_survey_enabled: false,
  allow_messages_after_resolved: true,
  working_hours_enabled: false,
  timezone: "UTC",
  lock_to_single_conversation: false,
  sender_name_type: "friendly",
  business_name: null,
  out_of_office_message: null,
  widget_color: null,
  welcome_title: null,
  welcome_tagline: null,
  webhook_url: null,
};

const SETTING_KEYS = Object.keys(SETTING_DEFAULTS) as (keyof InboxSettings)[];
const CHANNEL_SETTING_KEYS = ["widget_color", "welcome_title", "welcome_tagline", "webhook_url"] as const;

/** Web widgets' default colour in Chatwoot. */
const DEFAULT_WIDGET_COLOR = "#1f93ff";

/** A stored inbox (older items lack the settings: their defaults apply). */
export type StoredInbox = Inbox & Partial<InboxSettings>;
/** The inbox as its events carry it: every setting, plus Chatwoot's avatar_url. */
export type InboxData = Inbox & InboxSettings & { readonly avatar_url: string };
/** The inbox as replies show it: its data and, for web widgets, the embed snippet. */
export type InboxView = InboxData & { readonly web_widget_script: string | null };

/**
 * The embed snippet of a web widget (Chatwoot's `web_widget_script`): loads the widget SDK from
 * `baseUrl` and runs it with the inbox's website token.
 */
export function widgetScript(websiteToken: string, baseUrl: string): string {
  const base = JSON.stringify(baseUrl.replace(/\/$/, ""));
  return [
    "<script>",
    "  (function(d,t) {",
    `    var BASE_URL=${base};`,
    "    var g=d.createElement(t),s=d.getElementsByTagName(t)[0];",
    '    g.src=BASE_URL+"/packs/js/sdk.js";',
    "    g.defer = true;",
    "    g.async = true;",
    "    s.parentNode.insertBefore(g,s);",
    "    g.onload=function(){",
    "      window.chatwootSDK.run({",
    `        websiteToken: ${JSON.stringify(websiteToken)},`,
    "        baseUrl: BASE_URL",
    "      })",
    "    }",
    '  })(document,"script");',
    "</script>",
  ].join("\n");
}

/** The stored inbox with every setting (defaults for what older items lack). */
export function inboxData(inbox: StoredInbox): InboxData {
  const settings = Object.fromEntries(SETTING_KEYS.map((k) => [k, inbox[k] ?? SETTING_DEFAULTS[k]])) as unknown as InboxSettings;
  return {
    ...inbox,
    ...settings,
    widget_color: settings.widget_color ?? (inbox.website_token !== null ? DEFAULT_WIDGET_COLOR : null),
    avatar_url: "",
  };
}

export function inboxView(inbox: StoredInbox, baseUrl: string): InboxView {
  return { ...inboxData(inbox), web_widget_script: inbox.website_token ? widgetScript(inbox.website_token, baseUrl) : null };
}

/** The settings an input sets (top level, or inside `channel` for the channel's own). */
function settingsOf(input: Partial<InboxSettings> & { readonly channel?: Partial<InboxSettings> | undefined }): Partial<InboxSettings> {
  const out: Record<string, unknown> = {};
  for (const k of SETTING_KEYS) if (input[k] !== undefined) out[k] = input[k];
  for (const k of CHANNEL_SETTING_KEYS) if (input.channel?.[k] !== undefined) out[k] = input.channel[k];
  return out as Partial<InboxSettings>;
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

type SettingsInput = { readonly [K in keyof InboxSettings]?: InboxSettings[K] | undefined };
type ChannelSettingsInput = { readonly [K in (typeof CHANNEL_SETTING_KEYS)[number]]?: InboxSettings[K] | undefined };

export interface CreateInboxInput extends SettingsInput {
  readonly name: string;
  readonly channel: { readonly type: ChannelKind; readonly website_url?: string | undefined } & ChannelSettingsInput;
  readonly greeting_enabled?: boolean | undefined;
  readonly greeting_message?: string | undefined;
}

export interface UpdateInboxInput extends SettingsInput {
  readonly name?: string | undefined;
  readonly channel?: ({ readonly website_url?: string | undefined } & ChannelSettingsInput) | undefined;
  readonly greeting_enabled?: boolean | undefined;
  readonly greeting_message?: string | null | undefined;
}

export function inboxPayload(event: "inbox_created" | "inbox_updated", inbox: Inbox, account: Account): DomainEvent {
  return {
    event,
    accountId: inbox.account_id,
    inboxId: inbox.id,
    // As replies show the inbox, but for the embed snippet (it depends on the address called).
    payload: { ...inboxData(inbox), event, id: String(inbox.id), account: accountRef(account) },
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
  const inbox = {
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
    ...SETTING_DEFAULTS,
    ...settingsOf(input),
  } as Inbox;
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
  const next: StoredInbox = {
    ...prev,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.channel?.website_url !== undefined ? { website_url: input.channel.website_url } : {}),
    ...(input.greeting_enabled !== undefined ? { greeting_enabled: input.greeting_enabled } : {}),
    ...(input.greeting_message !== undefined ? { greeting_message: input.greeting_message } : {}),
    ...settingsOf(input),
  };
  const changed = (Object.keys(next) as (keyof StoredInbox)[]).some((k) => next[k] !== (prev as StoredInbox)[k]);
  if (!changed) return prev;
  const updated: Inbox = { ...next, updated_at: Math.max(Math.floor(now.getTime() / 1000), prev.updated_at) };
  await store.replaceInbox(prev, updated, [inboxPayload("inbox_updated", updated, account)]);
  return updated;
}

/** updateInbox, read again and re-applied on fresh state when a concurrent update won the race. */
export const updateInbox = (...args: Parameters<typeof updateInboxOnce>) => retryOnStale(() => updateInboxOnce(...args));
