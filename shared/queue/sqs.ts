/** One SQS client per container, endpoint from config (rebuilt when it changes); the deliveries queue adapter. */
import { SendMessageBatchCommand, SQSClient } from "@aws-sdk/client-sqs";
import { config, perConfig } from "../config.ts";
import type { DeliveryMessage, DeliveryQueue } from "../domain/deliveries.ts";
import { queueJson } from "../events/queue-json.ts";

export const sqs: () => SQSClient = perConfig(
  (c) => new SQSClient({ region: c.AWS_REGION, ...(c.SQS_ENDPOINT ? { endpoint: c.SQS_ENDPOINT } : {}), maxAttempts: 3 }),
  (old) => old.destroy(),
);

/** SendMessageBatch in chunks of 10; any entry that failed fails the call (the caller retries). */
export async function sendJsonBatch(queueUrl: string, bodies: readonly unknown[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    const chunk = bodies.slice(i, i + 10);
    const out = await sqs().send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: chunk.map((b, j) => ({ Id: String(j), MessageBody: queueJson(b) })) }),
    );
    if (out.Failed?.length) throw new Error(`SQS refused ${out.Failed.length} message(s): ${out.Failed.map((f) => f.Code).join(", ")}`);
  }
}

function deliveryQueueUrl(): string {
  const url = config().DELIVERY_QUEUE_URL;
  if (!url) throw new Error("DELIVERY_QUEUE_URL is not set");
  return url;
}

export const deliveryQueue: DeliveryQueue = {
  enqueue: (messages: readonly DeliveryMessage[]) => sendJsonBatch(deliveryQueueUrl(), messages),
};
