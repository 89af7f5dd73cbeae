import * as z from "zod/mini";
import { PRIORITIES, STATUSES } from "../../domain/conversations.ts";
import { pagingShape, queryInt } from "./paging.ts";

const id = z.number().check(z.int(), z.positive());
const attrs = z.record(z.string(), z.unknown());
const content = z.string().check(z.maxLength(150_000));

export const createConversationBody = z.object({
  inbox_id: id,
  contact_id: id,
  status: z.optional(z.enum(STATUSES)),
  assignee_id: z.optional(z.nullable(id)),
  priority: z.optional(z.nullable(z.enum(PRIORITIES))),
  custom_attributes: z.optional(attrs),
  additional_attributes: z.optional(attrs),
  message: z.optional(z.object({ content: content.check(z.minLength(1)), private: z.optional(z.boolean()) })),
});

export const updateConversationBody = z.object({
  priority: z.optional(z.nullable(z.enum(PRIORITIES))),
  custom_attributes: z.optional(attrs),
  additional_attributes: z.optional(attrs),
});

export const listConversationsQuery = z.object({
  ...pagingShape,
  status: z._default(z.enum([...STATUSES, "all"]), "open"),
  inbox_id: z.optional(queryInt),
  assignee_type: z._default(z.enum(["me", "unassigned", "assigned", "all"]), "all"),
});

export const metaQuery = z.object({
  status: z._default(z.enum([...STATUSES, "all"]), "open"),
  inbox_id: z.optional(queryInt),
});

export const toggleStatusBody = z.object({
  status: z.optional(z.enum(STATUSES)),
  snoozed_until: z.optional(z.number().check(z.int(), z.positive())),
});

export const typingBody = z.object({
  typing_status: z.enum(["on", "off"]),
  is_private: z.optional(z.boolean()),
});

export const assignmentBody = z.object({ assignee_id: z.nullable(id) });

export const createMessageBody = z.object({
  content: z.optional(content),
  message_type: z.optional(z.enum(["outgoing", "incoming"])),
  private: z.optional(z.boolean()),
  content_attributes: z.optional(attrs),
  attachment_ids: z.optional(z.array(id).check(z.maxLength(10))),
  source_id: z.optional(z.string().check(z.maxLength(255))),
});

export const updateMessageBody = z.object({
  content: z.optional(content),
  content_attributes: z.optional(attrs),
});

export const transcriptQuery = z.object({ format: z._default(z.enum(["json", "text"]), "json") });
