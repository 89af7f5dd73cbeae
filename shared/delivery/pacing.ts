/**
 * Pacing of a webhook with a `rate_limit` (deliveries per second), through the limiter: a
 * fixed one-second window per webhook in the throttle table, every check counted. The n-th
 * check of a window past the limit waits ceil((n - limit) / limit) seconds, so a burst comes
 * back spread over the following windows, about `limit` per window, instead of all at once
 * (each wait costs the message one receive: see deliveryMaxReceiveCount). A counter that cannot
 * be counted (store error or timeout) makes the delivery wait a second (fail closed: the receiver
 * stays protected; nothing is lost, the message only comes back later).
 */
import { Limiter, type CounterStore } from "../ratelimit/limiter.ts";
import type { Rule } from "../ratelimit/rules.ts";

/** What pacing reads of a webhook (the domain's Webhook has this shape). */
export interface PacedWebhook {
  readonly id: number;
  readonly account_id: number;
  readonly rate_limit: number | null;
}

function paceRule(limit: number): Rule {
  return {
    name: "webhook_rate",
    limit,
    windowSeconds: 1,
    // Stryker disable next-line StringLiteral: the subject is built below; the limiter never reads `key`
    key: "account",
    algorithm: "fixed",
    // Stryker disable next-line StringLiteral: pacing decides on a count that failed itself (below); only decide() reads `failure`
    failure: "closed",
  };
}

/** Seconds a delivery of `w` must wait before it is sent (0 = send now). */
export function pacer(store: CounterStore): (w: PacedWebhook, nowMs: number) => Promise<number> {
  const limiter = new Limiter(store);
  return async (w, nowMs) => {
    if (w.rate_limit === null) return 0;
    const outcome = await limiter.evaluate([{ rule: paceRule(w.rate_limit), subject: `${w.account_id}:${w.id}` }], nowMs);
    const v = outcome.verdicts[0];
    if (!v) return 1;
    return v.allowed ? 0 : Math.max(1, Math.ceil((v.count - w.rate_limit) / w.rate_limit));
  };
}
