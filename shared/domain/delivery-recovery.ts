/**
 * `recover`: re-queue every delivery of a window (by creation time) of one webhook that ended
 * `failed` or `skipped`, typically once a receiver that was down is back. The work goes in pages;
 * a recovery item (one per webhook and window) holds the cursor, the count and a lease, so that
 * - a second call while one runs re-queues nothing (it sees the lease and answers the count),
 * - a run cut short (time budget, crash, timeout) is resumed from the cursor by the next call,
 * - redoing a page is harmless: a re-queued delivery is `pending`, no longer a candidate.
 */
import { randomUUID } from "node:crypto";
import { Conflict, ValidationError } from "../errors.ts";
import { rerun, type Delivery, type DeliveryMessage, type DeliveryQueue } from "./deliveries.ts";
import { requireWebhook, type WebhookStore } from "./webhooks.ts";

export interface RecoveryKey {
  readonly accountId: number;
  readonly webhookId: number;
  /** Unix seconds, inclusive. */
  readonly since: number;
  readonly until: number;
}

export interface RecoveryState {
  readonly cursor: string | null;
  readonly recovered: number;
  readonly done: boolean;
}

export interface StoredRecovery {
  readonly state: RecoveryState;
  readonly owner: string;
  readonly leaseUntilMs: number;
}

export interface RecoveryStore {
  getRecovery(key: RecoveryKey): Promise<StoredRecovery | undefined>;
  /** Writes the run if held by `expectedOwner` (null: if none exists); false when another call holds it. */
  putRecovery(key: RecoveryKey, state: RecoveryState, owner: string, leaseUntilMs: number, expectedOwner: string | null): Promise<boolean>;
  /** One page of the window's candidates (failed or skipped), oldest first. */
  recoveryPage(key: RecoveryKey, cursor: string | null, limit: number, nowSec: number): Promise<{ items: Delivery[]; next: string | null }>;
  /** Starts the delivery's next run if unchanged since read; false when another run got there first. */
  restartDelivery(prev: Delivery, next: Delivery): Promise<boolean>;
}

/** How long a run holds the window: longer than the function's timeout. */
export const RECOVERY_LEASE_MS = 120_000;
export const RECOVERY_PAGE = 100;

export async function recoverDeliveries(
  hooks: WebhookStore,
  store: RecoveryStore,
  queue: DeliveryQueue,
  accountId: number,
  webhookId: number,
  window: { readonly since: number; readonly until?: number | undefined },
  now: Date,
  budgetMs: number,
): Promise<{ recovered: number; done: boolean }> {
  const webhook = await requireWebhook(hooks, accountId, webhookId);
  // Recovered deliveries of a disabled webhook would only be skipped again.
  if (webhook.status === "disabled") throw new Conflict("The webhook is disabled: turn it on (status active), then recover", "webhook_disabled");
  const nowMs = now.getTime();
  const until = window.until ?? Math.floor(nowMs / 1000);
  if (until < window.since) throw ValidationError.field("until", "invalid", "must not be before since");
  const key: RecoveryKey = { accountId, webhookId, since: window.since, until };
  const found = await store.getRecovery(key);
  if (found && !found.state.done && found.leaseUntilMs > nowMs) return { recovered: found.state.recovered, done: false };

  const owner = randomUUID();
  // An unfinished run resumes from its cursor; a finished one starts over (what failed again is sent again).
  let state: RecoveryState = found && !found.state.done ? found.state : { cursor: null, recovered: 0, done: false };
  if (!(await store.putRecovery(key, state, owner, nowMs + RECOVERY_LEASE_MS, found?.owner ?? null))) {
    return { recovered: (await store.getRecovery(key))?.state.recovered ?? 0, done: false };
  }
  const started = performance.now();
  const nowSec = Math.floor(nowMs / 1000);
  while (!state.done && performance.now() - started < budgetMs) {
    const page = await store.recoveryPage(key, state.cursor, RECOVERY_PAGE, nowSec);
    const candidates = page.items.filter((d) => d.status === "failed" || d.status === "skipped");
    const restarted = await Promise.all(
      candidates.map(async (d) => {
        const next = rerun(d, nowMs);
        return (await store.restartDelivery(d, next)) ? next : undefined;
      }),
    );
    const messages: DeliveryMessage[] = restarted
      .filter((d): d is Delivery => d !== undefined)
      .map((d) => ({ deliveryId: d.id, accountId: d.account_id, webhookId: d.webhook_id, seq: d.seq }));
    if (messages.length) await queue.enqueue(messages);
    state = { cursor: page.next, recovered: state.recovered + messages.length, done: page.next === null };
    if (!(await store.putRecovery(key, state, owner, nowMs + RECOVERY_LEASE_MS, owner))) return { recovered: state.recovered, done: false };
  }
  // Out of time: let the next call resume from the cursor at once.
  if (!state.done) await store.putRecovery(key, state, owner, 0, owner);
  return { recovered: state.recovered, done: state.done };
}
