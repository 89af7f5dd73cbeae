/**
 * THE queue-worker table, beside the route table. Pure data: it imports no handler.
 * One row per Lambda that an SQS queue triggers (not behind a route). The CDK stack makes the
 * queue, its DLQ and the event-source mapping per row, the build bundles every row's function,
 * and the sandbox's queue poller hands each row's queue to the same handler module.
 *
 * Numbers that follow the webhook settings (WEBHOOK_TIMEOUT, WEBHOOK_RETRY_SCHEDULE) are
 * functions of them, so the stack (from its context) and the sandbox (from its configuration)
 * derive the same values.
 */
import { deliveryMaxReceiveCount } from "./delivery/schedule.ts";

/** What a worker's derived numbers depend on. */
export interface WorkerSettings {
  /** WEBHOOK_TIMEOUT, seconds. */
  readonly webhookTimeoutSeconds: number;
  /** WEBHOOK_RETRY_SCHEDULE, parsed (shared/delivery/schedule.ts). */
  readonly retrySchedule: readonly number[];
}

export type WorkerQueue = "events" | "deliveries";

export interface Worker {
  /** File under functions/ (without .ts); also the Lambda's logical name. */
  readonly fn: string;
  /** The queue whose batches trigger it (each queue has its own DLQ). */
  readonly queue: WorkerQueue;
  /** Queue name in the sandbox (the stack lets CloudFormation name its queues). */
  readonly queueName: string;
  readonly dlqName: string;
  /** Messages per invocation (event-source mapping BatchSize); partial batch failures are reported. */
  readonly batchSize: number;
  /** Receives before SQS moves a message to the DLQ. */
  readonly maxReceiveCount: (s: WorkerSettings) => number;
  /** The queue's visibility timeout, seconds (at least the function's timeout). */
  readonly visibilityTimeoutSeconds: (s: WorkerSettings) => number;
  /** The queue's retention, seconds; omitted = SQS's default (4 days). */
  readonly retentionSeconds?: (s: WorkerSettings) => number;
  /** How long the DLQ keeps a message, seconds. */
  readonly dlqRetentionSeconds: number;
  /** Lambda timeout, seconds; omitted = the stack's default. */
  readonly timeoutSeconds?: (s: WorkerSettings) => number;
  /**
   * Batches the sandbox runs at once. Lambda scales an SQS mapping out to many concurrent
   * invocations (the stack reserves none); a batch holding a slow receiver keeps its invocation
   * until WEBHOOK_TIMEOUT, so the delivery side gets many slots.
   */
  readonly sandboxConcurrency: number;
}

const DAY = 86_400;

/** Delivery Lambda timeout: the records of a batch are attempted concurrently, so one receiver timeout plus the bookkeeping. */
const deliverTimeout = (s: WorkerSettings): number => s.webhookTimeoutSeconds + 20;

export const workers = [
  {
    // Events queue (the bus rule's target) -> one delivery per subscribed webhook.
    fn: "webhooks-fanout",
    queue: "events",
    queueName: "conversa-events",
    dlqName: "conversa-events-dlq",
    batchSize: 10,
    maxReceiveCount: () => 5,
    visibilityTimeoutSeconds: () => 60,
    dlqRetentionSeconds: 14 * DAY,
    sandboxConcurrency: 8,
  },
  {
    // Deliveries queue -> one signed POST per message; retries are visibility changes, so
    // maxReceiveCount follows the retry schedule and retention covers the whole schedule.
    fn: "webhooks-deliver",
    queue: "deliveries",
    queueName: "conversa-deliveries",
    dlqName: "conversa-deliveries-dlq",
    batchSize: 10,
    maxReceiveCount: (s) => deliveryMaxReceiveCount(s.retrySchedule),
    visibilityTimeoutSeconds: (s) => deliverTimeout(s) * 3,
    retentionSeconds: (s) => Math.min(14 * DAY, 4 * DAY + s.retrySchedule.reduce((sum, n) => sum + n, 0)),
    dlqRetentionSeconds: 14 * DAY,
    timeoutSeconds: deliverTimeout,
    sandboxConcurrency: 256,
  },
] as const satisfies readonly Worker[];

export type WorkerFn = (typeof workers)[number]["fn"];

export function workerFor(queue: WorkerQueue): Worker {
  const w = (workers as readonly Worker[]).find((x) => x.queue === queue);
  if (!w) throw new Error(`no worker for queue ${queue}`);
  return w;
}
