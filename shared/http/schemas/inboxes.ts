import * as z from "zod/mini";

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

export const createInboxBody = z.object({
  name,
  channel: z.object({
    type: z.enum(["api", "web_widget"]),
    website_url: z.optional(httpUrl),
  }),
  greeting_enabled: z.optional(z.boolean()),
  greeting_message: z.optional(z.string().check(z.maxLength(1000))),
});

export const updateInboxBody = z.object({
  name: z.optional(name),
  channel: z.optional(z.object({ website_url: z.optional(httpUrl) })),
  greeting_enabled: z.optional(z.boolean()),
  greeting_message: z.optional(z.nullable(z.string().check(z.maxLength(1000)))),
});
