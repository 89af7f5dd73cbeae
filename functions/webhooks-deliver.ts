/**
 * Deliveries queue -> one signed POST per message. Retries reuse the received message: its
 * visibility is set to the schedule's next delay (ChangeMessageVisibility, at most 12 h; every
 * step of the retry schedule fits), so nothing is re-sent by us and the receive count SQS keeps
 * drives the DLQ: after the last attempt the message is released at once and, past
 * maxReceiveCount, SQS moves it to the DLQ. (Delete + re-send with DelaySeconds would cap each
 * hop at 15 min and need explicit DLQ writes.)
 */
import * as z from "zod/mini";
import type { SQSEvent } from "aws-lambda";
import { config } from "../shared/config.ts";
import { now } from "../shared/clock.ts";
import { deliveriesRepo, healthRepo } from "../shared/db/webhooks-repo.ts";
import { throttleStore } from "../shared/db/throttle-store.ts";
import { attemptDelivery, DELIVERY_ID } from "../shared/domain/deliveries.ts";
import { pacer } from "../shared/delivery/pacing.ts";
import { log } from "../shared/observability/log.ts";
import { parseSchedule } from "../shared/delivery/schedule.ts";
import { recordDeliveryMetrics } from "../shared/delivery/metrics.ts";
import { postJson } from "../shared/delivery/sender.ts";
import { processBatch } from "../shared/queue/batch.ts";
import { EVENT_NAMES } from "../shared/events/catalog.ts";

const message = z.object({
  deliveryId: z.string().check(z.regex(DELIVERY_ID)),
  accountId: z.number().check(z.int()),
  webhookId: z.number().check(z.int()),
  seq: z.number().check(z.int()),
  first: z.optional(z.object({ event: z.enum(EVENT_NAMES), eventId: z.string(), payload: z.string(), createdAtMs: z.number() })),
});

export const handler = (event: SQSEvent) => {
  const c = config();
  const deps = {
    store: deliveriesRepo,
    schedule: parseSchedule(c.WEBHOOK_RETRY_SCHEDULE),
    nowMs: () => now().getTime(),
    health: { store: healthRepo, disableAfterSeconds: c.WEBHOOK_DISABLE_AFTER_HOURS * 3600 },
    pace: pacer(throttleStore()),
    send: (url: string, body: string, headers: Record<string, string>) =>
      postJson(url, body, headers, { timeoutMs: c.WEBHOOK_TIMEOUT * 1000, allowPrivate: c.WEBHOOK_ALLOW_PRIVATE_NETWORK }),
  };
  return processBatch(event, c.DELIVERY_QUEUE_URL, async (record) => {
    const receives = Number(record.attributes?.ApproximateReceiveCount ?? "1");
    const outcome = await attemptDelivery(deps, message.parse(JSON.parse(record.body)), receives);
    recordDeliveryMetrics(outcome);
    if (outcome.disabled) log.warn("webhook disabled", { accountId: outcome.disabled.account_id, webhookId: outcome.disabled.id, reason: outcome.disabled.disabled_reason });
    return outcome.kind === "done" ? "done" : { againInSeconds: outcome.delaySeconds };
  });
};
