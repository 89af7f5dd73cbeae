import * as z from "zod/mini";
import { isEventName, type EventName } from "../../events/catalog.ts";
import { httpUrl } from "./inboxes.ts";

/** Chatwoot clients send `{"webhook":{...}}`; others the fields plainly. */
const unwrap = (v: unknown): unknown => {
  if (v && typeof v === "object" && !Array.isArray(v) && "webhook" in v) {
    const inner = (v as { webhook: unknown }).webhook;
    if (inner && typeof inner === "object" && !Array.isArray(inner)) return inner;
  }
  return v;
};

/** Non-empty, every value one of the 12 events: else 422 "Subscriptions Invalid events" on `subscriptions`. */
const subscriptions = z.pipe(
  z.array(z.unknown()).check(
    z.refine((a) => a.length > 0 && a.every((s) => typeof s === "string" && isEventName(s)), {
      message: "Invalid events",
      params: { code: "invalid_events" },
    }),
  ),
  z.transform((a) => a as EventName[]),
);

const name = z.nullable(z.string().check(z.trim(), z.maxLength(255)));
const webhookType = z.enum(["account_type", "inbox_type"]);
const inboxId = z.nullable(z.number().check(z.int(), z.positive()));

export const createWebhookBody = z.pipe(
  z.transform(unwrap),
  z.object({
    url: httpUrl,
    subscriptions,
    name: z.optional(name),
    webhook_type: z.optional(webhookType),
    inbox_id: z.optional(inboxId),
  }),
);

export const updateWebhookBody = z.pipe(
  z.transform(unwrap),
  z.object({
    url: z.optional(httpUrl),
    subscriptions: z.optional(subscriptions),
    name: z.optional(name),
    webhook_type: z.optional(webhookType),
    inbox_id: z.optional(inboxId),
  }),
);

/** `page` (1-based) and `per` (default 25, 1..100): a non-integer is 422, a value outside is clamped. */
const intParam = (dflt: number, min: number, max: number) =>
  z.pipe(
    z.optional(z.string().check(z.regex(/^-?\d{1,9}$/))),
    z.transform((v) => (v === undefined ? dflt : Math.min(max, Math.max(min, Number(v))))),
  );

export const listQuery = z.object({
  page: intParam(1, 1, 1_000_000),
  per: intParam(25, 1, 100),
  cursor: z.optional(z.string().check(z.maxLength(2048))),
});
