/**
 * Rate limiting in the middy chain, production only:
 * - the client stage: "global" and the route's IP and e-mail rules, started before the key lookup
 *   and left on the request state (`clientChecks`); the auth stage awaits them together with the key
 *   read, so they add no round trip to the request, and a throttled client gets the 429 whatever its
 *   key (the e-mail is the JSON body's `email`, lower-cased and trimmed);
 * - the identity stage, after authentication: the route's account and API-key rules.
 * The rules of a stage are counted in parallel. Allow-listed IPs skip everything. Allowed
 * responses carry `RateLimit` for the tightest rule they were counted by (at least "global").
 */
import { config, throttleActive, type Config } from "../config.ts";
import { DEFAULT_MAX_BODY_BYTES, type Route } from "../routes.ts";
import { sha256Hex } from "../domain/secrets.ts";
import { throttleStore } from "../db/throttle-store.ts";
import { allowList, ipSubject, type AllowList } from "../ratelimit/ip.ts";
import { decide, Limiter, rateLimitHeader, tightest, type Check, type Outcome } from "../ratelimit/limiter.ts";
import { buildRules, isRuleName, type KeyKind, type Rule, type RuleName } from "../ratelimit/rules.ts";
import { stateOf, type Event, type RequestState, type Stage } from "./context.ts";
import { log } from "../observability/log.ts";
import { emitMetric } from "../observability/metrics.ts";

interface Runtime {
  readonly config: Config;
  readonly active: boolean;
  readonly rules: Readonly<Record<RuleName, Rule>>;
  readonly allowed: AllowList;
}

let cached: Runtime | undefined;

function runtime(): Runtime {
  const c = config();
  if (cached?.config === c) return cached;
  cached = { config: c, active: throttleActive(c), rules: buildRules(c), allowed: allowList(c.THROTTLE_ALLOWED_IPS) };
  return cached;
}

/** The route's rules (unknown names are a programming error, caught by the route-table test). */
function routeRules(route: Route, rt: Runtime): Rule[] {
  return route.throttle.map((name) => {
    if (!isRuleName(name)) throw new Error(`route ${route.id}: unknown throttle rule "${name}"`);
    return rt.rules[name];
  });
}

/** `email` of a JSON object body, lower-cased and trimmed; undefined when absent or unreadable. */
export function emailOf(event: Event, maxBytes: number): string | undefined {
  if (!event.body) return undefined;
  const raw = event.isBase64Encoded ? Buffer.from(event.body, "base64") : Buffer.from(event.body, "utf8");
  if (raw.length > maxBytes) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw.toString("utf8"));
    const email = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>)["email"] : undefined;
    const normalized = typeof email === "string" ? email.trim().toLowerCase() : "";
    return normalized || undefined;
  } catch {
    return undefined;
  }
}

type Subjects = Partial<Record<KeyKind, string>>;

function checksFor(rules: readonly Rule[], subjects: Subjects): Check[] {
  return rules.flatMap((rule) => {
    const subject = subjects[rule.key];
    return subject === undefined ? [] : [{ rule, subject }];
  });
}

/** CloudWatch Embedded Metric Format: one log line that is also a metric. */
function storeErrorMetric(rule: Rule, requestId: string, error: unknown): void {
  log.error("rate limiter store failed", {
    requestId,
    rule: rule.name,
    mode: rule.failure === "open" ? "fail_open" : "fail_closed",
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  });
  emitMetric("RateLimiterStoreError", 1, "Count", { Rule: rule.name, Mode: rule.failure });
}

async function enforce(api: RequestState, checks: readonly Check[]): Promise<void> {
  if (checks.length === 0) return;
  const nowMs = api.now.getTime();
  const outcome: Outcome = await new Limiter(throttleStore()).evaluate(checks, nowMs);
  for (const f of outcome.failed) storeErrorMetric(f.rule, api.requestId, f.error);
  // Throttles per rule (EMF "Throttled", dimension Rule): one per rule that denied this request.
  for (const v of outcome.verdicts) if (!v.allowed) emitMetric("Throttled", 1, "Count", { Rule: v.rule.name });
  const verdict = tightest([decide(outcome, nowMs), api.tightest]);
  if (!verdict) return;
  api.tightest = verdict;
  api.replyHeaders["ratelimit"] = rateLimitHeader(verdict, nowMs);
}

function skip(rt: Runtime, api: RequestState): boolean {
  return !rt.active || rt.allowed.has(api.sourceIp);
}

/**
 * "global" and the route's IP and e-mail rules: started here and left under way on the request
 * state (`clientChecks`); the auth stage awaits them alongside the key lookup.
 */
export const throttleByClient = (route: Route): Stage => ({
  before: (request) => {
    const rt = runtime();
    const api = stateOf(request);
    if (skip(rt, api)) return;
    const rules = [rt.rules.global, ...routeRules(route, rt).filter((r) => r.key === "ip" || r.key === "email")];
    const email = rules.some((r) => r.key === "email") ? emailOf(request.event, route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) : undefined;
    const pending = enforce(api, checksFor(rules, { ip: ipSubject(api.sourceIp), ...(email ? { email: sha256Hex(email) } : {}) }));
    pending.catch(() => undefined); // awaited by the auth stage; never an unhandled rejection
    api.clientChecks = pending;
  },
});

/** The route's account and API-key rules, after authentication. */
export const throttleByIdentity = (route: Route): Stage => ({
  before: async (request) => {
    const rt = runtime();
    const api = stateOf(request);
    if (skip(rt, api) || route.throttle.length === 0) return;
    const rules = routeRules(route, rt).filter((r) => r.key === "account" || r.key === "api_key");
    const id = api.identity;
    const subjects: Subjects = {
      ...(id?.accountId !== undefined ? { account: String(id.accountId) } : {}),
      ...(id?.keyId ? { api_key: id.keyId } : {}),
    };
    await enforce(api, checksFor(rules, subjects));
  },
});

/**
 * The overall per-IP rule for a request no route serves (the `$default` router's 404s, the
 * sandbox's own pages): every request counts toward THROTTLE_LIMIT, not only routed ones.
 * Throws RateLimited when the client is over it; fails open like the rule itself.
 */
export async function countUnrouted(sourceIp: string, nowMs: number): Promise<void> {
  const rt = runtime();
  if (!rt.active || rt.allowed.has(sourceIp)) return;
  const outcome = await new Limiter(throttleStore()).evaluate([{ rule: rt.rules.global, subject: ipSubject(sourceIp) }], nowMs);
  for (const v of outcome.verdicts) if (!v.allowed) emitMetric("Throttled", 1, "Count", { Rule: v.rule.name });
  decide(outcome, nowMs);
}
