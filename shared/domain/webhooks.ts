/**
 * Webhook subscriptions: per-account integer ids, url unique per account
 * (a marker item written in the same transaction: see WebhookStore), administrators only.
 */
import { createHash } from "node:crypto";
import type { EventName } from "../events/catalog.ts";
import { newWebhookSecret } from "../delivery/signing.ts";
import { NotFound, ValidationError } from "./errors.ts";
import { retryOnStale } from "./retry.ts";

export type WebhookType = "account_type" | "inbox_type";

export interface Webhook {
  readonly id: number;
  readonly account_id: number;
  readonly name: string | null;
  readonly url: string;
  readonly subscriptions: readonly EventName[];
  readonly webhook_type: WebhookType;
  readonly inbox_id: number | null;
  readonly secret: string;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface InboxRef {
  readonly id: number;
  readonly name: string;
}

/** The webhook as replies show it: its inbox as `{id, name}`. */
export interface WebhookView extends Omit<Webhook, "inbox_id"> {
  readonly inbox: InboxRef | null;
}

/** Thrown by a store when the url marker of the account already exists. */
export class UrlTaken extends Error {
  constructor() {
    super("url taken");
  }
}

export interface WebhookStore {
  nextWebhookId(accountId: number): Promise<number>;
  /** Writes the webhook and its url marker in one transaction; UrlTaken when the marker exists. */
  insertWebhook(webhook: Webhook): Promise<void>;
  getWebhook(accountId: number, webhookId: number): Promise<Webhook | undefined>;
  listWebhooks(accountId: number): Promise<Webhook[]>;
  /** Writes `next` if unchanged since `prev` was read; moves the url marker when the url changed. */
  replaceWebhook(prev: Webhook, next: Webhook): Promise<void>;
  /** Deletes the webhook and its url marker in one transaction. */
  deleteWebhook(webhook: Webhook): Promise<void>;
  getInboxRef(accountId: number, inboxId: number): Promise<InboxRef | undefined>;
  listInboxRefs(accountId: number): Promise<InboxRef[]>;
}

export interface WebhookInput {
  readonly url?: string | undefined;
  readonly subscriptions?: readonly EventName[] | undefined;
  readonly name?: string | null | undefined;
  readonly webhook_type?: WebhookType | undefined;
  readonly inbox_id?: number | null | undefined;
}

/** The identity of a url for uniqueness: WHATWG-normalized (scheme/host case, default port, empty path). */
export function normalizeUrl(url: string): string {
  return new URL(url.trim()).href;
}

export const urlHash = (url: string): string => createHash("sha256").update(normalizeUrl(url)).digest("hex");

const taken = () => ValidationError.field("url", "taken", "has already been taken");
const badInbox = () => ValidationError.field("inbox_id", "invalid", "is invalid");

export function view(w: Webhook, inbox: InboxRef | null | undefined): WebhookView {
  const { inbox_id, ...rest } = w;
  return { ...rest, inbox: inbox_id === null ? null : (inbox ?? { id: inbox_id, name: "" }) };
}

/** Scope rules: `inbox_id` alone implies inbox_type; inbox_type needs an inbox of this account. */
async function resolveScope(
  store: WebhookStore,
  accountId: number,
  type: WebhookType | undefined,
  inboxId: number | null | undefined,
): Promise<{ webhook_type: WebhookType; inbox: InboxRef | null }> {
  const effective: WebhookType = type ?? (inboxId != null ? "inbox_type" : "account_type");
  if (effective === "account_type") return { webhook_type: "account_type", inbox: null };
  if (inboxId == null) throw ValidationError.field("inbox_id", "blank", "can't be blank");
  const inbox = await store.getInboxRef(accountId, inboxId);
  if (!inbox) throw badInbox();
  return { webhook_type: "inbox_type", inbox };
}

async function orTaken<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof UrlTaken) throw taken();
    throw err;
  }
}

const seconds = (now: Date) => Math.floor(now.getTime() / 1000);

export async function createWebhook(
  store: WebhookStore,
  accountId: number,
  input: WebhookInput & { url: string; subscriptions: readonly EventName[] },
  now: Date,
): Promise<WebhookView> {
  const scope = await resolveScope(store, accountId, input.webhook_type, input.inbox_id);
  const id = await store.nextWebhookId(accountId);
  const ts = seconds(now);
  const webhook: Webhook = {
    id,
    account_id: accountId,
    name: input.name ?? null,
    url: input.url.trim(),
    subscriptions: [...new Set(input.subscriptions)],
    webhook_type: scope.webhook_type,
    inbox_id: scope.inbox?.id ?? null,
    secret: newWebhookSecret(),
    created_at: ts,
    updated_at: ts,
  };
  await orTaken(() => store.insertWebhook(webhook));
  return view(webhook, scope.inbox);
}

export async function requireWebhook(store: WebhookStore, accountId: number, webhookId: number): Promise<Webhook> {
  const w = await store.getWebhook(accountId, webhookId);
  if (!w) throw new NotFound();
  return w;
}

export async function showWebhook(store: WebhookStore, accountId: number, webhookId: number): Promise<WebhookView> {
  const w = await requireWebhook(store, accountId, webhookId);
  return view(w, w.inbox_id === null ? null : await store.getInboxRef(accountId, w.inbox_id));
}

export async function listWebhooks(store: WebhookStore, accountId: number): Promise<WebhookView[]> {
  const [hooks, inboxes] = await Promise.all([store.listWebhooks(accountId), store.listInboxRefs(accountId)]);
  const byId = new Map(inboxes.map((i) => [i.id, i]));
  return hooks.map((w) => view(w, w.inbox_id === null ? null : byId.get(w.inbox_id)));
}

async function updateWebhookOnce(
  store: WebhookStore,
  accountId: number,
  webhookId: number,
  input: WebhookInput,
  now: Date,
): Promise<WebhookView> {
  const prev = await requireWebhook(store, accountId, webhookId);
  // Scope: an explicit type or inbox_id re-resolves it; otherwise it stays as it was.
  const scopeChanged = input.webhook_type !== undefined || input.inbox_id !== undefined;
  const scope = scopeChanged
    ? await resolveScope(
        store,
        accountId,
        input.webhook_type ?? (input.inbox_id === null ? "account_type" : input.inbox_id !== undefined ? "inbox_type" : prev.webhook_type),
        input.inbox_id !== undefined ? input.inbox_id : prev.inbox_id,
      )
    : undefined;
  const next: Webhook = {
    ...prev,
    ...(input.url !== undefined ? { url: input.url.trim() } : {}),
    ...(input.subscriptions !== undefined ? { subscriptions: [...new Set(input.subscriptions)] } : {}),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(scope ? { webhook_type: scope.webhook_type, inbox_id: scope.inbox?.id ?? null } : {}),
    updated_at: Math.max(seconds(now), prev.updated_at),
  };
  await orTaken(() => store.replaceWebhook(prev, next));
  return view(next, scope ? scope.inbox : next.inbox_id === null ? null : await store.getInboxRef(accountId, next.inbox_id));
}

/** updateWebhook, read again and re-applied on fresh state when a concurrent update won the race. */
export const updateWebhook = (...args: Parameters<typeof updateWebhookOnce>) => retryOnStale(() => updateWebhookOnce(...args));

export async function deleteWebhook(store: WebhookStore, accountId: number, webhookId: number): Promise<void> {
  await store.deleteWebhook(await requireWebhook(store, accountId, webhookId));
}

async function resetSecretOnce(store: WebhookStore, accountId: number, webhookId: number, now: Date): Promise<WebhookView> {
  const prev = await requireWebhook(store, accountId, webhookId);
  const next: Webhook = { ...prev, secret: newWebhookSecret(), updated_at: Math.max(seconds(now), prev.updated_at) };
  await store.replaceWebhook(prev, next);
  return view(next, next.inbox_id === null ? null : await store.getInboxRef(accountId, next.inbox_id));
}

/** resetSecret, read again and re-applied on fresh state when a concurrent update won the race. */
export const resetSecret = (...args: Parameters<typeof resetSecretOnce>) => retryOnStale(() => resetSecretOnce(...args));

/** Does this webhook receive this event? (Its subscriptions, and for an inbox webhook, its inbox.) */
export function wants(w: Webhook, event: EventName, inboxId: number | undefined): boolean {
  if (!w.subscriptions.includes(event)) return false;
  if (w.webhook_type === "account_type") return true;
  return inboxId !== undefined && inboxId === w.inbox_id;
}
