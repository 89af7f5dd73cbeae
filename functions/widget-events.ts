import { api } from "../shared/http/api.ts";
import { widgetRepo } from "../shared/db/widget-repo.ts";
import { triggerWidget } from "../shared/domain/widget.ts";
import { widgetEventBody, widgetEventReply, widgetQuery } from "../shared/http/schemas/widget-reports.ts";
import { successReply } from "../shared/http/replies.ts";

export const handler = api("widget.events", { body: widgetEventBody, query: widgetQuery, response: widgetEventReply }, async (ctx) => {
  await triggerWidget(widgetRepo, ctx.query.website_token, ctx.body);
  return { body: successReply() };
});
