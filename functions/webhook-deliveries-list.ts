import { api } from "../shared/http/api.ts";
import { deliveriesRepo, webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { deliveryView, listDeliveries } from "../shared/domain/deliveries.ts";
import { idParam } from "../shared/http/params.ts";
import { deliveryListReply, listQuery } from "../shared/http/schemas/webhooks.ts";
import { itemsFirstPageReply } from "../shared/http/replies.ts";

export const handler = api("webhooks.deliveries", { query: listQuery, response: deliveryListReply }, async (ctx) => {
  const page = await listDeliveries(webhooksRepo, deliveriesRepo, ctx.accountId, idParam(ctx.params, "webhook_id"), ctx.query, ctx.now);
  const meta = { count: page.count, current_page: ctx.query.page, per: ctx.query.per, has_more: page.hasMore, next_cursor: page.nextCursor };
  return { body: itemsFirstPageReply({ items: page.items.map(deliveryView), meta }) };
});
