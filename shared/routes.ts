/**
 * THE route table. Pure data: it imports no handler.
 * The CDK stack makes one Lambda + one API Gateway route per row, the sandbox routes requests by it,
 * and the tests loop over it (auth, tenant-isolation and bad-input matrices, infra parity).
 */
import type { Role } from "./domain/identity.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type AuthKind = "api_key" | "public";

export interface Route {
  /** Stable id, `area.action`. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway path syntax: `{name}` parameters. */
  readonly path: string;
  /** File under functions/ (without .ts); also the Lambda's logical name. */
  readonly fn: string;
  readonly auth: AuthKind;
  /** For account routes (`{account_id}` in the path): the least role allowed. */
  readonly role?: Role;
  /**
   * Names of the rate-limit rules applied (shared/ratelimit/rules.ts); "global" (per IP) is implied.
   * Names: contact_search, upload, transcript, reports_account, reports_user, conversations_meta,
   * login_ip, login_email, password_ip, checkout_subscribe, checkout_link, checkout_prefill,
   * checkout_coupon, checkout_quote, checkout_plans, widget_events.
   */
  readonly throttle: readonly string[];
  /**
   * Request body kind; default "json" for POST/PUT/PATCH, "none" otherwise. "form": JSON, or
   * multipart/form-data with the same fields as text parts plus files (Chatwoot's message forms).
   */
  readonly body?: "json" | "multipart" | "form" | "none";
  /** Largest accepted request body in bytes (after base64 decoding). */
  readonly maxBodyBytes?: number;
  /** Lambda memory in MB, when the default does not fit. */
  readonly memoryMb?: number;
  /** Lambda timeout in seconds, when the default does not fit. */
  readonly timeoutSeconds?: number;
  /** Public routes called from the marketing site: CORS for CHECKOUT_ALLOWED_ORIGINS (shared/http/cors.ts). */
  readonly cors?: boolean;
  /** `cache-control` of every reply of the route, errors included (e.g. "no-store"). */
  readonly cacheControl?: string;
}

const ACC = "/api/v1/accounts/{account_id}";
/**
 * Messages with files: a synchronous Lambda payload is at most 6 MB and the body travels
 * base64-encoded in the event (4/3 larger), so about 4.5 MB of form (≈ 4 MB of files) fits.
 */
const MESSAGE_FORM_MAX_BYTES = 4_500_000;
const CHECKOUT = "/api/v1/public_checkout";

export const routes = [
  // Accounts and inboxes
  { id: "accounts.show", method: "GET", path: ACC, fn: "accounts-show", auth: "api_key", role: "agent", throttle: [] },
  { id: "inboxes.list", method: "GET", path: `${ACC}/inboxes`, fn: "inboxes-list", auth: "api_key", role: "agent", throttle: [] },
  { id: "inboxes.create", method: "POST", path: `${ACC}/inboxes`, fn: "inboxes-create", auth: "api_key", role: "agent", throttle: [] },
  { id: "inboxes.show", method: "GET", path: `${ACC}/inboxes/{inbox_id}`, fn: "inboxes-show", auth: "api_key", role: "agent", throttle: [] },
  { id: "inboxes.update", method: "PATCH", path: `${ACC}/inboxes/{inbox_id}`, fn: "inboxes-update", auth: "api_key", role: "agent", throttle: [] },

  // Webhooks
  { id: "webhooks.list", method: "GET", path: `${ACC}/webhooks`, fn: "webhooks-list", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.create", method: "POST", path: `${ACC}/webhooks`, fn: "webhooks-create", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.show", method: "GET", path: `${ACC}/webhooks/{webhook_id}`, fn: "webhooks-show", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.update", method: "PATCH", path: `${ACC}/webhooks/{webhook_id}`, fn: "webhooks-update", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.delete", method: "DELETE", path: `${ACC}/webhooks/{webhook_id}`, fn: "webhooks-delete", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.reset_secret", method: "POST", path: `${ACC}/webhooks/{webhook_id}/reset_secret`, fn: "webhooks-reset-secret", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.deliveries", method: "GET", path: `${ACC}/webhooks/{webhook_id}/deliveries`, fn: "webhook-deliveries-list", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.resend", method: "POST", path: `${ACC}/webhooks/{webhook_id}/deliveries/{delivery_id}/resend`, fn: "webhook-deliveries-resend", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.attempts", method: "GET", path: `${ACC}/webhooks/{webhook_id}/deliveries/{delivery_id}/attempts`, fn: "webhook-deliveries-attempts", auth: "api_key", role: "administrator", throttle: [] },
  { id: "webhooks.recover", method: "POST", path: `${ACC}/webhooks/{webhook_id}/recover`, fn: "webhooks-recover", auth: "api_key", role: "administrator", throttle: [], timeoutSeconds: 30 },
  { id: "webhooks.test", method: "POST", path: `${ACC}/webhooks/{webhook_id}/test`, fn: "webhooks-test", auth: "api_key", role: "administrator", throttle: [] },

  // Contacts, conversations, messages, widget, upload, reports
  { id: "contacts.list", method: "GET", path: `${ACC}/contacts`, fn: "contacts-list", auth: "api_key", role: "agent", throttle: [] },
  { id: "contacts.create", method: "POST", path: `${ACC}/contacts`, fn: "contacts-create", auth: "api_key", role: "agent", throttle: [] },
  { id: "contacts.search", method: "GET", path: `${ACC}/contacts/search`, fn: "contacts-search", auth: "api_key", role: "agent", throttle: ["contact_search"] },
  { id: "contacts.show", method: "GET", path: `${ACC}/contacts/{contact_id}`, fn: "contacts-show", auth: "api_key", role: "agent", throttle: [] },
  { id: "contacts.update", method: "PATCH", path: `${ACC}/contacts/{contact_id}`, fn: "contacts-update", auth: "api_key", role: "agent", throttle: [] },
  { id: "contacts.replace", method: "PUT", path: `${ACC}/contacts/{contact_id}`, fn: "contacts-update", auth: "api_key", role: "agent", throttle: [] },
  { id: "conversations.list", method: "GET", path: `${ACC}/conversations`, fn: "conversations-list", auth: "api_key", role: "agent", throttle: [] },
  { id: "conversations.create", method: "POST", path: `${ACC}/conversations`, fn: "conversations-create", auth: "api_key", role: "agent", throttle: [] },
  { id: "conversations.meta", method: "GET", path: `${ACC}/conversations/meta`, fn: "conversations-meta", auth: "api_key", role: "agent", throttle: ["conversations_meta"] },
  { id: "conversations.show", method: "GET", path: `${ACC}/conversations/{conversation_id}`, fn: "conversations-show", auth: "api_key", role: "agent", throttle: [] },
  { id: "conversations.update", method: "PATCH", path: `${ACC}/conversations/{conversation_id}`, fn: "conversations-update", auth: "api_key", role: "agent", throttle: [] },
  { id: "conversations.toggle_status", method: "POST", path: `${ACC}/conversations/{conversation_id}/toggle_status`, fn: "conversations-toggle-status", auth: "api_key", role: "agent", throttle: [] },
  { id: "conversations.toggle_typing_status", method: "POST", path: `${ACC}/conversations/{conversation_id}/toggle_typing_status`, fn: "conversations-toggle-typing", auth: "api_key", role: "agent", throttle: [] },
  { id: "conversations.assignments", method: "POST", path: `${ACC}/conversations/{conversation_id}/assignments`, fn: "conversations-assign", auth: "api_key", role: "agent", throttle: [] },
  { id: "conversations.transcript", method: "GET", path: `${ACC}/conversations/{conversation_id}/transcript`, fn: "conversations-transcript", auth: "api_key", role: "agent", throttle: ["transcript"] },
  { id: "messages.list", method: "GET", path: `${ACC}/conversations/{conversation_id}/messages`, fn: "messages-list", auth: "api_key", role: "agent", throttle: [] },
  { id: "messages.create", method: "POST", path: `${ACC}/conversations/{conversation_id}/messages`, fn: "messages-create", auth: "api_key", role: "agent", throttle: [], body: "form", maxBodyBytes: MESSAGE_FORM_MAX_BYTES, memoryMb: 512 },
  { id: "messages.update", method: "PATCH", path: `${ACC}/conversations/{conversation_id}/messages/{message_id}`, fn: "messages-update", auth: "api_key", role: "agent", throttle: [], body: "form", maxBodyBytes: MESSAGE_FORM_MAX_BYTES, memoryMb: 512 },
  { id: "upload.create", method: "POST", path: `${ACC}/upload`, fn: "upload-create", auth: "api_key", role: "agent", throttle: ["upload"], body: "multipart", maxBodyBytes: 5_767_168, memoryMb: 512 },
  { id: "reports.show", method: "GET", path: "/api/v2/accounts/{account_id}/reports", fn: "reports-show", auth: "api_key", role: "agent", throttle: ["reports_account", "reports_user"] },
  { id: "widget.events", method: "POST", path: "/api/v1/widget/events", fn: "widget-events", auth: "public", throttle: ["widget_events"] },

  // Authentication and API keys
  { id: "auth.sign_in", method: "POST", path: "/auth/sign_in", fn: "auth-sign-in", auth: "public", throttle: ["login_ip", "login_email"] },
  { id: "auth.password_request", method: "POST", path: "/auth/password", fn: "auth-password-request", auth: "public", throttle: ["password_ip"] },
  // The reset itself has only the overall per-IP rule: its token (256 random bits) cannot be
  // guessed, and a visitor retyping a weak password must not lose the reset for half an hour.
  { id: "auth.password_reset", method: "PUT", path: "/auth/password", fn: "auth-password-reset", auth: "public", throttle: [] },
  { id: "access_tokens.list", method: "GET", path: "/api/v1/profile/access_tokens", fn: "access-tokens-list", auth: "api_key", throttle: [] },
  { id: "access_tokens.create", method: "POST", path: "/api/v1/profile/access_tokens", fn: "access-tokens-create", auth: "api_key", throttle: [] },
  { id: "access_tokens.revoke", method: "DELETE", path: "/api/v1/profile/access_tokens/{token_id}", fn: "access-tokens-revoke", auth: "api_key", throttle: [] },

  // Public checkout and billing
  { id: "checkout.plans", method: "GET", path: `${CHECKOUT}/plans`, fn: "checkout-plans", auth: "public", throttle: ["checkout_plans"], cors: true },
  { id: "checkout.link", method: "POST", path: `${CHECKOUT}/link`, fn: "checkout-link", auth: "public", throttle: ["checkout_link"], cors: true },
  { id: "checkout.prefill", method: "GET", path: `${CHECKOUT}/prefill`, fn: "checkout-prefill", auth: "public", throttle: ["checkout_prefill"], cors: true, cacheControl: "no-store" },
  { id: "checkout.coupon", method: "POST", path: `${CHECKOUT}/coupon`, fn: "checkout-coupon", auth: "public", throttle: ["checkout_coupon"], cors: true },
  { id: "checkout.subscribe", method: "POST", path: `${CHECKOUT}/subscribe`, fn: "checkout-subscribe", auth: "public", throttle: ["checkout_subscribe"], cors: true, cacheControl: "no-store", timeoutSeconds: 20, memoryMb: 1024 },
  { id: "checkout.quote", method: "POST", path: `${CHECKOUT}/quote`, fn: "checkout-quote", auth: "public", throttle: ["checkout_quote"], cors: true },
  { id: "billing.coupon", method: "POST", path: `${ACC}/billing/coupon`, fn: "billing-coupon", auth: "api_key", role: "administrator", throttle: [] },

  // The checkout page the links open (web/): HTML, then its content-hashed script and style sheet.
  { id: "checkout.page", method: "GET", path: "/checkout", fn: "checkout-page", auth: "public", throttle: [] },
  { id: "checkout.asset", method: "GET", path: "/checkout/{asset}", fn: "checkout-page", auth: "public", throttle: [] },

] as const satisfies readonly Route[];

export type RouteId = (typeof routes)[number]["id"];

const byId = new Map<string, Route>(routes.map((r) => [r.id, r]));

export function routeById(id: RouteId): Route {
  const r = byId.get(id);
  if (!r) throw new Error(`unknown route ${id}`);
  return r;
}

/** Default body limit: JSON bodies are small; upload routes raise it. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export function bodyKind(route: Route): "json" | "multipart" | "form" | "none" {
  return route.body ?? (route.method === "GET" || route.method === "DELETE" ? "none" : "json");
}

/** Names of the path parameters of a route, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
}
