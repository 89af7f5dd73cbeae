/**
 * Events queue -> one deliveries-queue message per (event, matching webhook), once per event
 * (fan-out marker). A record that fails is retried by SQS, then lands in the events DLQ.
 */
import type { SQSEvent } from "aws-lambda";
import { deliveriesRepo, webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { fanOut } from "../shared/domain/deliveries.ts";
import { outboxEventFromBody } from "../shared/events/envelope.ts";
import { processBatch } from "../shared/queue/batch.ts";
import { deliveryQueue } from "../shared/queue/sqs.ts";
import { now } from "../shared/clock.ts";

export const handler = (event: SQSEvent) =>
  processBatch(event, undefined, async (record) => {
    await fanOut(webhooksRepo, deliveriesRepo, deliveryQueue, outboxEventFromBody(record.body), now().getTime());
    return "done";
  });
