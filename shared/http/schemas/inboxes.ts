import * as z from "zod/mini";
import { CHANNEL_TYPES } from "../../domain/inboxes.ts";
import { lazy } from "../../lazy.ts";
import { attrs, boolField, named, reply, unixTime, visible } from "./common.ts";
import { config } from "../../config.ts";

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

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(255), visible());
const text = (max: number) => z.nullable(z.string().check(z.maxLength(max)));

/**
 * Where the web widget's embed snippet loads the SDK from: the API's public URL, PUBLIC_API_URL
 * or else the address the request reached (API Gateway's domain, always https there).
 */
export const widgetBaseUrl = (event: { readonly requestContext: { readonly domainName: string } }): string =>
  config().PUBLIC_API_URL ?? `https://${event.requestContext.domainName}`;

/** The settings Chatwoot's inbox create and update accept at the top level. */
const settings = () => ({
  enable_auto_assignment: z.optional(boolField()),
  enable_email_collect: z.optional(boolField()),
  csat_survey_enabled: z.optional(boolField()),
  allow_messages_after_resolved: z.optional(boolField()),
  working_hours_enabled: z.optional(boolField()),
  lock_to_single_conversation: z.optional(boolField()),
  timezone: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
  sender_name_type: z.optional(z.enum(["friendly", "professional"])),
  business_name: z.optional(text(255)),
  out_of_office_message: z.optional(text(5000)),
});

/** And inside `channel` (web widget and API channel attributes). */
const channelSettings = () => ({
  website_url: z.optional(httpUrl),
  widget_color: z.optional(z.nullable(z.string().check(z.regex(/^#[0-9a-fA-F]{3,8}$/)))),
  welcome_title: z.optional(text(255)),
  welcome_tagline: z.optional(text(255)),
  webhook_url: z.optional(z.nullable(httpUrl)),
});

export const createInboxBody = lazy(() => z.object({
  name,
  channel: z.object({ type: z.enum(["api", "web_widget"]), ...channelSettings() }),
  greeting_enabled: z.optional(boolField()),
  greeting_message: z.optional(z.string().check(z.maxLength(1000))),
  ...settings(),
}));

export const updateInboxBody = lazy(() => z.object({
  name: z.optional(name),
  channel: z.optional(z.object(channelSettings())),
  greeting_enabled: z.optional(boolField()),
  greeting_message: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
  ...settings(),
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
    enable_auto_assignment: z.boolean(),
    enable_email_collect: z.boolean(),
    csat_survey_enabled: z.boolean(),
    allow_messages_after_resolved: z.boolean(),
    working_hours_enabled: z.boolean(),
    lock_to_single_conversation: z.boolean(),
    timezone: z.string(),
    sender_name_type: z.enum(["friendly", "professional"]),
    business_name: z.nullable(z.string()),
    out_of_office_message: z.nullable(z.string()),
    widget_color: z.nullable(z.string()),
    welcome_title: z.nullable(z.string()),
    welcome_tagline: z.nullable(z.string()),
    webhook_url: z.nullable(z.string()),
    avatar_url: z.string(),
    web_widget_script: z.nullable(z.string()),
    created_at: unixTime,
    updated_at: unixTime,
  }),
  "An inbox: a channel (Channel::Api or Channel::WebWidget; web widgets carry a website_token).",
);

export const accountReply = reply(() => accountView(), "The account");
export const inboxReply = reply(() => inboxView(), "The inbox");
export const inboxListReply = reply(() => z.looseObject({ payload: z.array(inboxView()) }), "Every inbox of the account");
