/**
 * The sandbox's event pipeline, with fauxqs for SQS:
 * - the queues and DLQs of the worker table (shared/workers.ts), as the CDK stack makes them;
 * - the Pipe's job: the stream poller (stream-poller.ts) puts envelopes on the events queue;
 * - the event-source mappings' job: one queue poller (queue-poller.ts) per worker;
 * - with a data directory, durability: the stream position survives a kill, and a restart drives
 *   again every delivery a kill left unfinished (recovery.ts).
 */
import { SQSClient } from "@aws-sdk/client-sqs";
import type { Config } from "../../shared/config.ts";
import { parseSchedule } from "../../shared/delivery/schedule.ts";
import { workers, type WorkerQueue, type WorkerSettings } from "../../shared/workers.ts";
import type { FauxqsServer, LocalAws } from "./fauxqs.ts";
import { LOCAL_CREDENTIALS } from "./dynamo.ts";
import { startQueuePoller, type Poller } from "./queue-poller.ts";
import { startStreamPoller } from "./stream-poller.ts";
import { redriveUnfinished } from "./recovery.ts";

const REGION = "us-east-1";
const ACCOUNT = "000000000000";

interface LocalQueue {
  readonly url: string;
  readonly arn: string;
}

/** Each worker's queue and DLQ on fauxqs. */
export type PipelineQueues = Readonly<Record<WorkerQueue, { readonly queue: LocalQueue; readonly dlq: LocalQueue }>>;

/** The variables that point the functions at a queue (the stack sets them from its queues). */
const QUEUE_URL_VARS: Readonly<Record<WorkerQueue, string>> = { events: "EVENTS_QUEUE_URL", deliveries: "DELIVERY_QUEUE_URL" };

/** What the worker table's derived numbers follow, from a configuration. */
export const workerSettings = (c: Config): WorkerSettings => ({
  webhookTimeoutSeconds: c.WEBHOOK_TIMEOUT,
  retrySchedule: parseSchedule(c.WEBHOOK_RETRY_SCHEDULE),
});

/** Creates every worker's queue and DLQ, with the stack's attributes. */
export function createQueues(server: FauxqsServer, settings: WorkerSettings): PipelineQueues {
  const out: Partial<Record<WorkerQueue, { queue: LocalQueue; dlq: LocalQueue }>> = {};
  for (const w of workers) {
    const dlq = server.createQueue(w.dlqName, { attributes: { MessageRetentionPeriod: String(w.dlqRetentionSeconds) } });
    const queue = server.createQueue(w.queueName, {
      attributes: {
        VisibilityTimeout: String(w.visibilityTimeoutSeconds(settings)),
        ...("retentionSeconds" in w ? { MessageRetentionPeriod: String(w.retentionSeconds(settings)) } : {}),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: w.maxReceiveCount(settings) }),
      },
    });
    out[w.queue] = { queue: { url: queue.queueUrl, arn: queue.queueArn }, dlq: { url: dlq.queueUrl, arn: dlq.queueArn } };
  }
  return out as PipelineQueues;
}

/** The configuration variables that name the queues (SQS endpoint and queue URLs). */
export function queueEnv(aws: LocalAws, queues: PipelineQueues): Record<string, string> {
  const env: Record<string, string> = { SQS_ENDPOINT: aws.endpoint };
  for (const [queue, name] of Object.entries(QUEUE_URL_VARS) as [WorkerQueue, string][]) env[name] = queues[queue].queue.url;
  return env;
}

export interface PipelineOptions {
  readonly dynamoEndpoint: string;
  /** The sandbox's one fauxqs instance (also serving S3); its owner stops it. */
  readonly aws: LocalAws;
  readonly queues: PipelineQueues;
  readonly tableName: string;
  /** How long stop() waits for invocations under way (ms): WEBHOOK_TIMEOUT plus bookkeeping. */
  readonly drainMs: number;
  /** Stream poll interval (ms). */
  readonly pollMs?: number;
  /**
   * A sandbox with a data directory: the stream poller keeps its position in this file, and the
   * start drives again what a crash left unfinished (recovery.ts).
   */
  readonly positionFile?: string | undefined;
  /** Where operator events are written, one JSON file each (stream-poller.ts). */
  readonly operatorEventsDir?: string | undefined;
}

export interface Pipeline {
  readonly sqsEndpoint: string;
  readonly queues: { readonly events: string; readonly eventsDlq: string; readonly deliveries: string; readonly deliveriesDlq: string };
  stop(): Promise<void>;
}

/** Starts the stream poller and one queue poller per worker; the handlers read the installed configuration. */
export async function startPipeline(opts: PipelineOptions): Promise<Pipeline> {
  const { queues } = opts;
  const sqs = new SQSClient({ endpoint: opts.aws.endpoint, region: REGION, credentials: LOCAL_CREDENTIALS });
  const pollers: Poller[] = [];
  try {
    pollers.push(
      await startStreamPoller({
        dynamoEndpoint: opts.dynamoEndpoint,
        tableName: opts.tableName,
        sqs,
        queueUrl: queues.events.queue.url,
        region: REGION,
        account: ACCOUNT,
        pollMs: opts.pollMs ?? 50,
        positionFile: opts.positionFile,
        operatorEventsDir: opts.operatorEventsDir,
      }),
    );
  } catch (err) {
    sqs.destroy();
    throw err;
  }
  for (const w of workers) {
    const q = queues[w.queue].queue;
    pollers.push(startQueuePoller({ sqs, queueUrl: q.url, queueArn: q.arn, region: REGION, fn: w.fn, batchSize: w.batchSize, concurrency: w.sandboxConcurrency }));
  }

  if (opts.positionFile) {
    const redriven = await redriveUnfinished();
    if (redriven) console.log(JSON.stringify({ level: "info", message: "sandbox: unfinished deliveries driven again", count: redriven }));
  }

  return {
    sqsEndpoint: opts.aws.endpoint,
    queues: { events: queues.events.queue.url, eventsDlq: queues.events.dlq.url, deliveries: queues.deliveries.queue.url, deliveriesDlq: queues.deliveries.dlq.url },
    async stop() {
      await Promise.allSettled(pollers.map((p) => p.stop()));
      // In-flight invocations end within WEBHOOK_TIMEOUT plus bookkeeping; bounded anyway.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(pollers.flatMap((p) => [...p.running])),
        new Promise((r) => (timer = setTimeout(r, opts.drainMs))),
      ]);
      clearTimeout(timer);
      sqs.destroy();
    },
  };
}
