import * as z from "zod/mini";
import { pagingShape } from "./paging.ts";

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(255));
const email = z.string().check(z.trim(), z.maxLength(320), z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/));
/** E.164, like Chatwoot. */
const phone = z.string().check(z.regex(/^\+[1-9]\d{1,14}$/));
const identifier = z.string().check(z.trim(), z.minLength(1), z.maxLength(255));
const attrs = z.record(z.string(), z.unknown());

export const createContactBody = z.object({
  name,
  email: z.optional(z.nullable(email)),
  phone_number: z.optional(z.nullable(phone)),
  identifier: z.optional(z.nullable(identifier)),
  custom_attributes: z.optional(attrs),
  additional_attributes: z.optional(attrs),
});

export const updateContactBody = z.object({
  name: z.optional(name),
  email: z.optional(z.nullable(email)),
  phone_number: z.optional(z.nullable(phone)),
  identifier: z.optional(z.nullable(identifier)),
  custom_attributes: z.optional(attrs),
  additional_attributes: z.optional(attrs),
});

export const searchContactsQuery = z.object({
  ...pagingShape,
  q: z.optional(z.string().check(z.maxLength(200))),
  sort: z.optional(z.enum(["name", "-name", "created_at", "-created_at", "last_activity_at", "-last_activity_at"])),
});
