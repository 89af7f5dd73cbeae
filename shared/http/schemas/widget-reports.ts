import * as z from "zod/mini";
import { AVG_METRICS, COUNT_METRICS } from "../../domain/reports.ts";
import { queryInt } from "./paging.ts";

export const widgetQuery = z.object({ website_token: z.string().check(z.minLength(1), z.maxLength(100)) });

export const widgetEventBody = z.object({
  name: z.literal("webwidget.triggered"),
  event_info: z.optional(z.record(z.string(), z.unknown())),
  contact_identifier: z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
});

export const reportsQuery = z.object({
  metric: z.enum([...COUNT_METRICS, ...AVG_METRICS]),
  type: z._default(z.enum(["account", "inbox"]), "account"),
  id: z.optional(queryInt),
  since: queryInt,
  until: queryInt,
  group_by: z._default(z.enum(["day", "week", "month"]), "day"),
});
