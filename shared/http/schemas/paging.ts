/** Query fields of the common rules: `page`, `per` (non-integer 422, outside clamped), `cursor`. */
import * as z from "zod/mini";
import { lazy } from "../../lazy.ts";
import { decodeCursor, DEFAULT_PER, MAX_PER, type PageRequest } from "../../domain/paging.ts";

/** Any integer, however long: one outside the range is clamped (20 digits read as 1e20, then clamped). */
const integer = z.string().check(z.regex(/^-?\d+$/));

export const pagingShape = {
  page: z.pipe(z.optional(integer), z.transform((v) => (v === undefined ? 1 : Math.min(Math.max(1, Number(v)), 100_000)))),
  per: z.pipe(z.optional(integer), z.transform((v) => (v === undefined ? DEFAULT_PER : Math.min(Math.max(1, Number(v)), MAX_PER)))),
  cursor: z.pipe(
    z.optional(z.string()),
    z.transform((v, ctx) => {
      if (v === undefined || v === "") return undefined;
      const id = decodeCursor(v);
      if (id === undefined) {
        ctx.issues.push({ code: "custom", message: "is invalid", input: v, params: { code: "invalid" } });
        return z.NEVER;
      }
      return id;
    }),
  ),
};

export const pageRequest = (q: { page: number; per: number; cursor: number | undefined }): PageRequest => ({ page: q.page, per: q.per, afterId: q.cursor });

export const pageQuery = lazy(() => z.object(pagingShape));

/**
 * The query of a list kept whole in Chatwoot's shape (inboxes, webhooks: `{"payload":[...]}`, no
 * `meta`): the paging parameters are checked as on every list, and every item is returned.
 */
export const wholeListQuery = lazy(() => z.object(pagingShape));

/** A positive integer in a query string (ids, unix seconds). */
export const queryInt = z.pipe(
  z.string().check(z.regex(/^\d{1,15}$/)),
  z.transform((v) => Number(v)),
);
