import { api } from "../shared/http/api.ts";
import { deliveriesRepo, webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { deliveryView } from "../shared/domain/deliveries.ts";
import { sendTest } from "../shared/domain/test-sends.ts";
import { deliveryQueue } from "../shared/queue/sqs.ts";
import { idParam } from "../shared/http/params.ts";
import { testSendBody, testSendReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("webhooks.test", { body: testSendBody, response: testSendReply }, async (ctx) => {
  const d = await sendTest(webhooksRepo, deliveriesRepo, deliveryQueue, ctx.accountId, idParam(ctx.params, "webhook_id"), ctx.body.event, ctx.now);
  return { status: 202, body: payloadReply({ delivery: deliveryView(d) }) };
});
