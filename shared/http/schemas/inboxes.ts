import * as z from "zod/mini";
import { CHANNEL_TYPES } from "../../domain/inboxes.ts";
import { lazy } from "../../lazy.ts";
import { attrs, named, reply, unixTime } from "./common.ts";

export const httpUrl = z.string().check(
  z.refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === "http:" || u.protocol === "https:";
    } catch {
      return false;
    }
  }, { message: "is invalid", params: { code: "invalid" } }),
);

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(255));

export const createInboxBody = lazy(() => z.object({
  name,
  channel: z.object({
    type: z.enum(["api", "web_widget"]),
    website_url: z.optional(httpUrl),
  }),
  greeting_enabled: z.optional(z.boolean()),
  greeting_message: z.optional(z.string().check(z.maxLength(1000))),
}));

export const updateInboxBody = lazy(() => z.object({
  name: z.optional(name),
  channel: z.optional(z.object({ website_url: z.optional(httpUrl) })),
  greeting_enabled: z.optional(z.boolean()),
  greeting_message: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
}));

// ---------------------------------------------------------------- replies

export const accountView = named(
  "Account",
  () => z.looseObject({
    id: z.int(),
    name: z.string(),
    locale: z.string(),
    status: z.enum(["active", "suspended"]),
    created_at: unixTime,
    custom_attributes: attrs,
  }),
);

export const inboxView = named(
  "Inbox",
  () => z.looseObject({
    id: z.int(),
    account_id: z.int(),
    name: z.string(),
    channel_type: z.enum(Object.values(CHANNEL_TYPES)),
    website_url: z.nullable(z.string()),
    website_token: z.nullable(z.string()),
    greeting_enabled: z.boolean(),
    greeting_message: z.nullable(z.string()),
    created_at: unixTime,
    updated_at: unixTime,
  }),
  "An inbox: a channel (Channel::Api or Channel::WebWidget; web widgets carry a website_token).",
);

export const accountReply = reply(() => accountView(), "The account");
export const inboxReply = reply(() => inboxView(), "The inbox");
export const inboxListReply = reply(() => z.looseObject({ payload: z.array(inboxView()) }), "Every inbox of the account");
