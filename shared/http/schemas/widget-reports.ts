import * as z from "zod/mini";
import { AVG_METRICS, COUNT_METRICS } from "../../domain/reports.ts";
import { attributeMap } from "./attributes.ts";
import { queryInt } from "./paging.ts";
import { lazy } from "../../lazy.ts";
import { reply, unixTime, type ReplySpec } from "./common.ts";

export const widgetQuery = lazy(() => z.object({ website_token: z.string().check(z.minLength(1), z.maxLength(100)) }));

export const widgetEventBody = lazy(() => z.object({
  name: z.literal("webwidget.triggered"),
  event_info: z.optional(attributeMap()),
  contact_identifier: z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
}));

export const reportsQuery = lazy(() => z.object({
  metric: z.enum([...COUNT_METRICS, ...AVG_METRICS]),
  type: z._default(z.enum(["account", "inbox"]), "account"),
  id: z.optional(queryInt),
  since: z.optional(queryInt),
  until: z.optional(queryInt),
  group_by: z._default(z.enum(["day", "week", "month"]), "day"),
}));

// ---------------------------------------------------------------- replies

/** 404: no web-widget inbox has this website_token. */
export const widgetEventReply: ReplySpec = { ...reply(() => z.looseObject({ success: z.literal(true) }), "The webwidget_triggered event is emitted"), errors: [404] };

export const reportsReply = reply(
  () => z.array(z.looseObject({ value: z.number(), timestamp: unixTime, count: z.optional(z.int()) })),
  "One point per bucket (start of the day, ISO week or month, UTC); averages carry `count`",
);
