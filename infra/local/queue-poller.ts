/**
 * The sandbox's Lambda event-source mapping: receives SQS batches from one queue and hands them
 * to the worker's real handler module, up to `concurrency` batches at once; deletes only the
 * successes (`batchItemFailures`). Failures reappear after their visibility, and past
 * maxReceiveCount SQS moves them to the DLQ; a handler that throws leaves its whole batch.
 */
import { randomUUID } from "node:crypto";
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { loadHandler } from "./handlers.ts";

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface QueuePollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly region: string;
  /** The worker: its function file, batch size and how many batches run at once. */
  readonly fn: string;
  readonly batchSize: number;
  readonly concurrency: number;
}

export interface Poller {
  /** Stops receiving; resolves when the receive loop has ended (invocations under way may still run). */
  stop(): Promise<void>;
  /** Invocations under way: the pipeline lets them finish before the stores go away. */
  readonly running: ReadonlySet<Promise<void>>;
}

const logError = (message: string, err: unknown) => console.error(JSON.stringify({ level: "error", message, error: String(err) }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sqsEvent(messages: readonly Message[], queueArn: string, region: string): SQSEvent {
  return {
    Records: messages.map((m) => ({
      messageId: m.MessageId!,
      receiptHandle: m.ReceiptHandle!,
      body: m.Body ?? "",
      attributes: (m.Attributes ?? {}) as unknown as SQSEvent["Records"][number]["attributes"],
      messageAttributes: {},
      md5OfBody: m.MD5OfBody ?? "",
      eventSource: "aws:sqs",
      eventSourceARN: queueArn,
      awsRegion: region,
    })),
  };
}

export function startQueuePoller(opts: QueuePollerOptions): Poller {
  const { sqs, queueUrl, fn } = opts;
  const handler = loadHandler<SqsHandler>(fn);
  const abort = new AbortController();
  const stopped = () => abort.signal.aborted;
  const running = new Set<Promise<void>>();
  let wake: (() => void) | undefined;

  const invoke = async (messages: Message[]): Promise<void> => {
    const context = { functionName: fn, awsRequestId: randomUUID(), getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
    let failed: Set<string>;
    try {
      const res = await (await handler)(sqsEvent(messages, opts.queueArn, opts.region), context);
      failed = new Set((res?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (err) {
      logError(`sandbox ${fn} threw`, err);
      return; // the whole batch reappears after its visibility timeout
    }
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    if (done.length && !stopped()) {
      await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }));
    }
  };

  const loop = (async () => {
    while (!stopped()) {
      if (running.size >= opts.concurrency) {
        await new Promise<void>((r) => (wake = r));
        continue;
      }
      try {
        const out = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: opts.batchSize, WaitTimeSeconds: 1, MessageSystemAttributeNames: ["All"] }),
          { abortSignal: abort.signal },
        );
        if (!out.Messages?.length) continue;
        const p: Promise<void> = invoke(out.Messages)
          .catch((err: unknown) => logError(`sandbox ${fn} poller`, err))
          .finally(() => {
            running.delete(p);
            wake?.();
            wake = undefined;
          });
        running.add(p);
      } catch (err) {
        if (stopped()) return;
        logError(`sandbox ${fn} receive`, err);
        await sleep(200);
      }
    }
  })();

  return {
    running,
    async stop() {
      abort.abort();
      wake?.();
      await loop;
    },
  };
}
