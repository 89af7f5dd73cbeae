/**
 * Webhook subscriptions: per-account integer ids, url unique per account
 * (a marker item written in the same transaction: see WebhookStore), administrators only.
 */
import { createHash } from "node:crypto";
import type { EventName } from "../events/catalog.ts";
import { newWebhookSecret } from "../delivery/signing.ts";
import { isForbiddenUrlHost } from "../delivery/ssrf.ts";
import { now as clockNow } from "../clock.ts";
import { Conflict, NotFound, ValidationError } from "../errors.ts";
import { retryOnStale } from "./retry.ts";

export type WebhookType = "account_type" | "inbox_type";
export type WebhookStatus = "active" | "disabled";

/** reset_secret's default overlap window: the old secret keeps signing for a day. */
export const DEFAULT_GRACE_SECONDS = 86_400;
export const MAX_GRACE_SECONDS = 7 * 86_400;

export interface Webhook {
  readonly id: number;
  readonly account_id: number;
  readonly name: string | null;
  readonly url: string;
  readonly subscriptions: readonly EventName[];
  readonly webhook_type: WebhookType;
  readonly inbox_id: number | null;
  readonly secret: string;
  /** The secret before the last rotation, still signing until previous_secret_expires_at; stored like `secret`. */
  readonly previous_secret: string | null;
  readonly previous_secret_expires_at: number | null;
  readonly status: WebhookStatus;
  readonly disabled_reason: string | null;
  readonly disabled_at: number | null;
  /** Deliveries per second at most (pacing); null = unpaced. */
  readonly rate_limit: number | null;
  /**
   * Unix seconds of the first failed attempt of the current run of failures; null while the last
   * attempt succeeded. Written only on a transition (success -> failure, failure -> success).
   */
  readonly failing_since: number | null;
  readonly created_at: number;
  readonly updated_at: number;
}

/** Fields older items lack, with their values. */
export const WEBHOOK_DEFAULTS = {
  previous_secret: null,
  previous_secret_expires_at: null,
  status: "active",
  disabled_reason: null,
  disabled_at: null,
  rate_limit: null,
  failing_since: null,
} as const satisfies Partial<Webhook>;

export interface InboxRef {
  readonly id: number;
  readonly name: string;
}

/** The webhook as replies show it: its inbox as `{id, name}`; the previous secret is never shown. */
export interface WebhookView extends Omit<Webhook, "inbox_id" | "previous_secret" | "failing_since"> {
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
  readonly status?: WebhookStatus | undefined;
  readonly rate_limit?: number | null | undefined;
}

/** The identity of a url for uniqueness: WHATWG-normalized (scheme/host case, default port, empty path). */
export function normalizeUrl(url: string): string {
  return new URL(url.trim()).href;
}

export function urlHash(url: string): string {
  return createHash("sha256").update(normalizeUrl(url)).digest("hex");
}

function taken(): ValidationError {
  return ValidationError.field("url", "taken", "has already been taken");
}

/** WEBHOOK_ALLOW_PRIVATE_NETWORK: lifts the address check (sandbox and tests only). */
export interface UrlPolicy {
  readonly allowPrivateNetwork: boolean;
}

/**
 * A url whose host is a literal private, loopback, link-local, metadata or otherwise non-public
 * address (in any notation) is refused when registered: no delivery could ever reach it.
 */
export function assertDeliverableUrl(url: string, policy: UrlPolicy): void {
  if (policy.allowPrivateNetwork || !isForbiddenUrlHost(new URL(url.trim()))) return;
  throw ValidationError.field("url", "forbidden_address", "is a private, loopback, link-local or reserved address");
}
/** Why a webhook an administrator turned off (or created off) is disabled. */
export const DISABLED_BY_HAND = "disabled by an administrator";

function badInbox(): ValidationError {
  return ValidationError.field("inbox_id", "invalid", "is invalid");
}

/** The previous secret while its window lasts (unix seconds `nowSec`). */
export function livePreviousSecret(w: Webhook, nowSec: number): string | null {
  return (w.previous_secret_expires_at ?? 0) > nowSec ? w.previous_secret : null;
}

/** The secrets that sign a delivery now: the current one, then the previous one inside its window. */
export function signingSecrets(w: Webhook, nowSec: number): string[] {
  const prev = livePreviousSecret(w, nowSec);
  return prev === null ? [w.secret] : [w.secret, prev];
}

/** Drops an expired previous secret (any write of the webhook does). */
export function withoutExpiredSecret(w: Webhook, nowSec: number): Webhook {
  return w.previous_secret !== null && livePreviousSecret(w, nowSec) === null ? { ...w, previous_secret: null, previous_secret_expires_at: null } : w;
}

export function view(w: Webhook, inbox: InboxRef | null | undefined, nowSec = Math.floor(clockNow().getTime() / 1000)): WebhookView {
  const { inbox_id, previous_secret: _p, failing_since: _f, ...rest } = w;
  const expires = livePreviousSecret(w, nowSec) === null ? null : w.previous_secret_expires_at;
  return { ...rest, previous_secret_expires_at: expires, inbox: inbox_id === null ? null : (inbox ?? { id: inbox_id, name: "" }) };
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

function seconds(now: Date): number {
  return Math.floor(now.getTime() / 1000);
}

export async function createWebhook(
  store: WebhookStore,
  accountId: number,
  input: WebhookInput & { url: string; subscriptions: readonly EventName[] },
  now: Date,
  policy: UrlPolicy,
): Promise<WebhookView> {
  assertDeliverableUrl(input.url, policy);
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
    ...WEBHOOK_DEFAULTS,
    // Created disabled on request: off until an administrator turns it on (as a disable by hand).
    ...(input.status === "disabled" ? { status: "disabled" as const, disabled_reason: DISABLED_BY_HAND, disabled_at: ts } : {}),
    rate_limit: input.rate_limit ?? null,
    created_at: ts,
    updated_at: ts,
  };
  await orTaken(() => store.insertWebhook(webhook));
  return view(webhook, scope.inbox, ts);
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
  policy: UrlPolicy,
): Promise<WebhookView> {
  if (input.url !== undefined) assertDeliverableUrl(input.url, policy);
  const prev = await requireWebhook(store, accountId, webhookId);
  // Scope: an explicit type or inbox_id re-resolves it; otherwise it stays as it was.
  const scopeChanged = input.webhook_type !== undefined || input.inbox_id !== undefined;
  const scope = scopeChanged
    ? await resolveScope(
        store,
        accountId,
        // Without a type, inbox_id (then set) decides it, as on create: null is the account, an id that inbox.
        input.webhook_type,
        input.inbox_id !== undefined ? input.inbox_id : prev.inbox_id,
      )
    : undefined;
  const nowSec = seconds(now);
  // `status: "active"` turns a disabled webhook back on (a fresh health record); "disabled" turns it off by hand.
  const statusChange: Partial<Webhook> =
    input.status === undefined || input.status === prev.status
      ? {}
      : input.status === "active"
        ? { status: "active", disabled_reason: null, disabled_at: null, failing_since: null }
        : { status: "disabled", disabled_reason: DISABLED_BY_HAND, disabled_at: nowSec };
  const next: Webhook = {
    ...withoutExpiredSecret(prev, nowSec),
    ...statusChange,
    ...(input.rate_limit !== undefined ? { rate_limit: input.rate_limit } : {}),
    ...(input.url !== undefined ? { url: input.url.trim() } : {}),
    ...(input.subscriptions !== undefined ? { subscriptions: [...new Set(input.subscriptions)] } : {}),
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(scope ? { webhook_type: scope.webhook_type, inbox_id: scope.inbox?.id ?? null } : {}),
    updated_at: Math.max(seconds(now), prev.updated_at),
  };
  await orTaken(() => store.replaceWebhook(prev, next));
  return view(next, scope ? scope.inbox : next.inbox_id === null ? null : await store.getInboxRef(accountId, next.inbox_id), nowSec);
}

/** updateWebhook, read again and re-applied on fresh state when a concurrent update won the race. */
export function updateWebhook(...args: Parameters<typeof updateWebhookOnce>): Promise<WebhookView> {
  return retryOnStale(() => updateWebhookOnce(...args));
}

export async function deleteWebhook(store: WebhookStore, accountId: number, webhookId: number): Promise<void> {
  await store.deleteWebhook(await requireWebhook(store, accountId, webhookId));
}

export interface ResetSecretInput {
  /** How long the old secret keeps signing (0 = not at all); default DEFAULT_GRACE_SECONDS. */
  readonly grace_seconds?: number | undefined;
  /** Rotate even inside a running window: the older secret is dropped at once. */
  readonly force?: boolean | undefined;
}

/**
 * Rotation with an overlap window: a new secret signs from now on, and the old one keeps signing
 * too (a second signature) for `grace_seconds`, so receivers can switch at their pace. A second
 * rotation inside the window would drop a secret receivers may still use: 409 unless `force`.
 */
async function resetSecretOnce(store: WebhookStore, accountId: number, webhookId: number, input: ResetSecretInput, now: Date): Promise<WebhookView> {
  const prev = await requireWebhook(store, accountId, webhookId);
  const nowSec = seconds(now);
  if (livePreviousSecret(prev, nowSec) !== null && !input.force) {
    throw new Conflict("A secret rotation is in progress (the previous secret is still valid); pass force:true to end it", "rotation_in_progress");
  }
  const grace = input.grace_seconds ?? DEFAULT_GRACE_SECONDS;
  const next: Webhook = {
    ...prev,
    secret: newWebhookSecret(),
    previous_secret: grace > 0 ? prev.secret : null,
    previous_secret_expires_at: grace > 0 ? nowSec + grace : null,
    updated_at: Math.max(nowSec, prev.updated_at),
  };
  await store.replaceWebhook(prev, next);
  return view(next, next.inbox_id === null ? null : await store.getInboxRef(accountId, next.inbox_id), nowSec);
}

/** resetSecret, read again and re-applied on fresh state when a concurrent update won the race. */
export function resetSecret(...args: Parameters<typeof resetSecretOnce>): Promise<WebhookView> {
  return retryOnStale(() => resetSecretOnce(...args));
}

/** Does this webhook receive this event? (Its subscriptions, and for an inbox webhook, its inbox.) */
export function wants(w: Webhook, event: EventName, inboxId: number | undefined): boolean {
  if (!w.subscriptions.includes(event)) return false;
  if (w.webhook_type === "account_type") return true;
  return inboxId === w.inbox_id;
}
