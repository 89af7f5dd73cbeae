/** Bodies and queries of the authentication and access-token routes. */
import * as z from "zod/mini";
import { ValidationError } from "../../errors.ts";
import { lazy } from "../../lazy.ts";
import { emptyReply, named, newPassword, pageMetaView, reply, unixTime } from "./common.ts";
import { pagingShape } from "./paging.ts";

/** Long enough for any address (RFC 5321: 254) and any pass phrase; bounded so scrypt input stays small. */
const email = z.string().check(z.trim(), z.minLength(1), z.maxLength(320));
const anyPassword = z.string().check(z.minLength(1), z.maxLength(1024));

export const signInBody = lazy(() => z.object({ email, password: anyPassword }));

export const passwordRequestBody = lazy(() => z.object({ email }));

export const passwordResetBody = lazy(() => z.object({
  reset_password_token: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
  password: newPassword(),
  password_confirmation: z.string().check(z.maxLength(128)),
}));

export const createAccessTokenBody = lazy(() => z.object({
  name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(100))),
}));

/** `page` and `per` as on every list (shared/http/schemas/paging.ts), or `cursor`. */
export const listQuery = lazy(() => z.object({
  page: pagingShape.page,
  per: pagingShape.per,
  cursor: z.optional(z.string().check(z.maxLength(200))),
}));

export interface PageRequest {
  readonly offset: number;
  readonly per: number;
  readonly page: number;
}

export function pageRequest(q: z.infer<ReturnType<typeof listQuery>>): PageRequest {
  const per = q.per;
  const fromCursor = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
  const offset = fromCursor ?? (q.page - 1) * per;
  return { offset, per, page: Math.floor(offset / per) + 1 };
}

const encodeCursor = (offset: number): string => Buffer.from(JSON.stringify({ o: offset })).toString("base64url");

function decodeCursor(cursor: string): number {
  try {
    const o = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { o?: unknown }).o;
    if (typeof o === "number" && Number.isSafeInteger(o) && o >= 0) return o;
  } catch {
    // an unreadable cursor is the client's mistake: 422 below
  }
  throw ValidationError.field("cursor", "invalid", "is invalid");
}

/** One page of an in-memory list, in the `{payload, meta}` shape. */
export function pageOf<T>(list: readonly T[], req: PageRequest) {
  const payload = list.slice(req.offset, req.offset + req.per);
  const hasMore = req.offset + req.per < list.length;
  return {
    payload,
    meta: { count: list.length, current_page: req.page, per: req.per, has_more: hasMore, next_cursor: hasMore ? encodeCursor(req.offset + req.per) : null },
  };
}

// ---------------------------------------------------------------- replies

const role = z.enum(["administrator", "agent"]);

export const signInReply = reply(
  () => z.looseObject({
    data: z.looseObject({
      id: z.int(),
      name: z.string(),
      email: z.string(),
      account_id: z.nullable(z.int()),
      role: z.nullable(role),
      access_token: z.string(),
      provider: z.literal("email"),
      uid: z.string(),
      accounts: z.array(z.looseObject({ id: z.int(), name: z.string(), role })),
    }),
  }),
  "Signed in: `access_token` is a new API key (use it as api_access_token)",
);

export const messageReply = (description: string) => reply(() => z.looseObject({ message: z.string() }), description);

export const accessTokenView = named(
  "AccessToken",
  () => z.looseObject({ id: z.string(), name: z.string(), prefix: z.string(), created_at: unixTime, last_used_at: z.nullable(unixTime) }),
  "An API key as listed: its prefix only, never the key.",
);

export const accessTokenListReply = reply(() => z.looseObject({ payload: z.array(accessTokenView()), meta: pageMetaView() }), "The user's API keys, newest first");
export const accessTokenCreatedReply = reply(
  () => z.looseObject({ ...accessTokenView().shape, access_token: z.string() }),
  "The new key: `access_token` is shown this once",
);
export const accessTokenRevokedReply = emptyReply("Revoked (empty body): the key stops working at once");
