/**
 * Every rate-limit rule, by the names the route table uses.
 * "global" applies to every route; the others to the routes that list them in `throttle`.
 *
 * - fixed: a window aligned to multiples of its length (general rules).
 * - sliding: `slices` slices, never more than `limit` in any window-long interval (the
 *   security rules: login, password recovery, checkout coupon, prefill and subscribe).
 * - failure "open": when the counter store fails the request is served (error log + metric);
 *   "closed": it is refused with 503 and Retry-After.
 */
import type { Config } from "../config.ts";
import type { SlidingSpec } from "./window.ts";

export type KeyKind = "ip" | "account" | "api_key" | "email";

/** Not a route rule: the delivery worker's per-webhook pacing (shared/delivery/pacing.ts). */
export type PacingRuleName = "webhook_rate";

export interface Rule {
  readonly name: RuleName | PacingRuleName;
  readonly limit: number;
  readonly windowSeconds: number;
  /** What is counted: the client IP (IPv6: its /64), the account, the API key, the e-mail of the JSON body. */
  readonly key: KeyKind;
  readonly algorithm: "fixed" | "sliding";
  readonly failure: "open" | "closed";
  /** Sliding rules: slices per window (the window must divide into whole seconds). */
  readonly slices?: number;
}

export const RULE_NAMES = [
  "global",
  "contact_search",
  "upload",
  "transcript",
  "reports_account",
  "reports_user",
  "conversations_meta",
  "login_ip",
  "login_email",
  "password_ip",
  "checkout_subscribe",
  "checkout_link",
  "checkout_prefill",
  "checkout_coupon",
  "checkout_quote",
  "checkout_plans",
  "widget_events",
] as const;

export type RuleName = (typeof RULE_NAMES)[number];

export function isRuleName(name: string): name is RuleName {
  return (RULE_NAMES as readonly string[]).includes(name);
}

const MINUTE = 60;
const HOUR = 3600;
/** Slices of a sliding window: 10 → a slice is forgotten at most 10% of the window late. */
export const SLIDING_SLICES = 10;

type Limits = Pick<
  Config,
  | "THROTTLE_LIMIT"
  | "RATE_LIMIT_CONTACT_SEARCH"
  | "RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL"
  | "RATE_LIMIT_REPORTS_API_USER_LEVEL"
  | "RATE_LIMIT_CONVERSATION_TRANSCRIPT"
  | "RATE_LIMIT_CONVERSATIONS_META"
>;

function general(name: RuleName, limit: number, windowSeconds: number, key: KeyKind): Rule {
  return { name, limit, windowSeconds, key, algorithm: "fixed", failure: "open" };
}

function security(name: RuleName, limit: number, windowSeconds: number, key: KeyKind): Rule {
  return { name, limit, windowSeconds, key, algorithm: "sliding", failure: "closed", slices: SLIDING_SLICES };
}

export function buildRules(c: Limits): Readonly<Record<RuleName, Rule>> {
  return {
    // Everything, per IP.
    global: general("global", c.THROTTLE_LIMIT, MINUTE, "ip"),
    // Per account unless stated; "per user" = per API key.
    contact_search: general("contact_search", c.RATE_LIMIT_CONTACT_SEARCH, MINUTE, "account"),
    upload: general("upload", 60, HOUR, "account"),
    transcript: general("transcript", c.RATE_LIMIT_CONVERSATION_TRANSCRIPT, HOUR, "account"),
    reports_account: general("reports_account", c.RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL, MINUTE, "account"),
    reports_user: general("reports_user", c.RATE_LIMIT_REPORTS_API_USER_LEVEL, MINUTE, "api_key"),
    conversations_meta: general("conversations_meta", c.RATE_LIMIT_CONVERSATIONS_META, MINUTE, "api_key"),
    // Sign-in and password reset: per IP and per e-mail.
    login_ip: security("login_ip", 5, 5 * MINUTE, "ip"),
    login_email: security("login_email", 10, 15 * MINUTE, "email"),
    password_ip: security("password_ip", 5, 30 * MINUTE, "ip"),
    // Public checkout, per IP.
    checkout_subscribe: security("checkout_subscribe", 5, 30 * MINUTE, "ip"),
    checkout_link: general("checkout_link", 60, MINUTE, "ip"),
    checkout_prefill: security("checkout_prefill", 20, 10 * MINUTE, "ip"),
    checkout_coupon: security("checkout_coupon", 10, 10 * MINUTE, "ip"),
    // The project's own choices (README, Rate limiting):
    // a quote request reaches a salesperson: 10 per hour per IP keeps a form spammer out.
    checkout_quote: general("checkout_quote", 10, HOUR, "ip"),
    // the published price table, read by every page view of the marketing site: 120 per minute.
    checkout_plans: general("checkout_plans", 120, MINUTE, "ip"),
    // chat-widget visitors, many behind one office NAT: 300 per minute per IP.
    widget_events: general("widget_events", 300, MINUTE, "ip"),
  };
}

/** Window of a rule's `RateLimit-Policy` and, for sliding rules, the slice spec. */
export function slidingSpec(rule: Rule): SlidingSpec {
  return { windowSeconds: rule.windowSeconds, slices: rule.slices ?? SLIDING_SLICES };
}

/** What is wrong with a route's `throttle` list (unknown or duplicate names, keys the route cannot give). */
export function routeRuleProblems(
  route: { readonly id: string; readonly path: string; readonly auth: string; readonly throttle: readonly string[] },
  rules: Readonly<Record<RuleName, Rule>>,
): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of route.throttle) {
    if (seen.has(name)) problems.push(`${route.id}: "${name}" listed twice`);
    seen.add(name);
    if (name === "global") problems.push(`${route.id}: "global" is implied, do not list it`);
    else if (!isRuleName(name)) problems.push(`${route.id}: unknown rule "${name}"`);
    else {
      const key = rules[name].key;
      if ((key === "account" || key === "api_key") && route.auth !== "api_key") problems.push(`${route.id}: "${name}" needs an API key`);
      if (key === "account" && !route.path.includes("{account_id}")) problems.push(`${route.id}: "${name}" needs {account_id}`);
    }
  }
  return problems;
}
