/**
 * SQS batches with partial failures (ReportBatchItemFailures): each record is handled on its
 * own and concurrently, so one slow or failing record neither delays nor repeats the others.
 * A record left in the queue can be given a new visibility (the retry schedule).
 */
import { ChangeMessageVisibilityCommand } from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { log } from "../observability/log.ts";
import { sqs } from "./sqs.ts";

/** `done` = delete it; `{again}` = leave it, visible again after `againInSeconds` (if given). */
export type RecordResult = "done" | { readonly againInSeconds?: number };

export async function processBatch(
  event: SQSEvent,
  queueUrl: string | undefined,
  handle: (record: SQSRecord) => Promise<RecordResult>,
): Promise<SQSBatchResponse> {
  const failures = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const r = await handle(record);
        if (r === "done") return [];
        if (r.againInSeconds !== undefined && queueUrl) {
          await sqs().send(
            new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: Math.max(0, Math.min(43200, Math.round(r.againInSeconds))) }),
          );
        }
        return [{ itemIdentifier: record.messageId }];
      } catch (err) {
        log.error("queue record failed", { messageId: record.messageId, error: err instanceof Error ? err.message : String(err) });
        return [{ itemIdentifier: record.messageId }];
      }
    }),
  );
  return { batchItemFailures: failures.flat() };
}
