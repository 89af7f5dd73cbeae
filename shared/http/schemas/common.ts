/**
 * What every route's reply shares: the declared success reply (status + zod schema) that api()
 * checks in development and test and the OpenAPI generator (tools/openapi.ts) documents, the
 * named schemas that become `components.schemas`, paging meta and the documented error bodies.
 * Replies are loose objects: the contract allows extra fields, never missing or renamed ones.
 */
import * as z from "zod/mini";
import { attributeMap } from "./attributes.ts";
import { lazy } from "../../lazy.ts";

/** Named schemas (`components.schemas` of the OpenAPI document), by id. */
export const components = z.registry<{ id: string; description?: string }>();


/**
 * A named schema (an OpenAPI component), built and registered on first use (shared/lazy.ts): reply
 * schemas are checked outside production only, so production never builds them.
 */
export function named<T extends z.ZodMiniType>(id: string, build: () => T, description?: string): () => T {
  return lazy(() => {
    const schema = build();
    components.add(schema, description === undefined ? { id } : { id, description });
    return schema;
  });
}

/** The success reply of a route. */
export interface ReplySpec {
  readonly status: number;
  /** JSON body, built on first call; absent = empty body. */
  readonly schema?: () => z.ZodMiniType;
  /** The route may also answer text (e.g. the transcript with `format=text`): what, in words. */
  readonly text?: string;
  /** The media types of that text (default text/plain). */
  readonly textTypes?: readonly string[];
  readonly description: string;
  /** Error statuses the use case answers beyond those the route table implies (e.g. 404 on an unknown token). */
  readonly errors?: readonly number[];
}

export const reply = (schema: () => z.ZodMiniType, description: string, status = 200): ReplySpec => ({ status, schema: lazy(schema), description });
export const emptyReply = (description: string, status = 200): ReplySpec => ({ status, description });

/**
 * An integer body field: a JSON number or, as Rails casts it for Chatwoot clients, a string of
 * digits (`"inbox_id":"12"`); an integer within the safe range and [min, max] either way.
 */
export const intField = (min = 1, max = Number.MAX_SAFE_INTEGER) =>
  z.pipe(
    z.pipe(z.union([z.number(), z.string().check(z.regex(/^\d{1,16}$/))]), z.transform((v) => Number(v))),
    z.number().check(z.int(), z.minimum(min), z.maximum(max)),
  );

/**
 * Text with something to see: a value of only whitespace, format characters and the characters
 * Unicode says to ignore when shown (a zero-width space, a word joiner, a BOM, a variation
 * selector, a Hangul filler...) is blank, as an empty one is.
 */
export const visible = () =>
  z.refine<string>((v) => /[^\s\p{Cf}\p{Default_Ignorable_Code_Point}]/u.test(v), { message: "can't be blank", params: { code: "blank" } });

/**
 * A field that may be null, read as Rails reads a blank value of it (an empty form input, or
 * `""`): as null, the field's "none".
 */
export const blankAsNull = <T extends z.ZodMiniType>(schema: T) =>
  z.pipe(z.transform((v: unknown) => (typeof v === "string" && v.trim() === "" ? null : v)), schema);

/** A password a user chooses: 8 to 128 characters, not only whitespace. */
export const newPassword = () =>
  z.string().check(z.minLength(8), z.maxLength(128), z.refine((v) => v.trim() !== "", { message: "can't be blank", params: { code: "blank" } }));

/** A boolean body field: true/false or, from a form, "true"/"false"/"1"/"0" (Rails' casting). */
export const boolField = () =>
  z.pipe(z.union([z.boolean(), z.enum(["true", "false", "1", "0"])]), z.transform((v) => v === true || v === "true" || v === "1"));

/** An attribute map: an object or, from a form, the JSON text of one; either is held to the attribute-map rules. */
export const attrsField = () =>
  z.pipe(
    z.transform((v: unknown, ctx): unknown => {
      if (typeof v !== "string") return v;
      try {
        const parsed: unknown = JSON.parse(v);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
      } catch {
        // reported below
      }
      ctx.issues.push({ code: "custom", message: "is not a JSON object", input: v, params: { code: "invalid" } });
      return z.NEVER;
    }),
    attributeMap(),
  );

/** Unix seconds. */
export const unixTime = z.int();
export const attrs = z.record(z.string(), z.unknown());

export const pageMetaView = named(
  "PageMeta",
  () => z.looseObject({
    count: z.int(),
    current_page: z.int(),
    per: z.int(),
    has_more: z.boolean(),
    next_cursor: z.nullable(z.string()),
  }),
  "Paging of a list: pass next_cursor as `cursor` for the next page.",
);

/** `{id, name}` reference to an account or inbox. */
export const refView = lazy(() => z.looseObject({ id: z.int(), name: z.string() }));

// ---------------------------------------------------------------- error bodies

export const errorBody = named(
  "Error",
  () => z.looseObject({ error: z.string(), code: z.string() }),
  "400 bad_json, 401 unauthorized|forbidden_account|forbidden_action, 404 not_found, 409, 413 too_large, 415, 503.",
);

export const validationBody = named(
  "ValidationErrors",
  () => z.looseObject({
    message: z.string(),
    attributes: z.array(z.string()),
    errors: z.array(z.looseObject({ field: z.string(), code: z.string(), message: z.string() })),
  }),
  "422: the fields at fault (`attributes`) with a stable code per field.",
);

export const rateLimitedBody = named(
  "RateLimited",
  () => z.looseObject({ error: z.string(), code: z.literal("rate_limited"), retry_after: z.int() }),
  "429, with Retry-After, RateLimit-Policy and RateLimit headers.",
);

export const internalErrorBody = named(
  "InternalError",
  () => z.looseObject({ error: z.string(), request_id: z.string() }),
  "500: no internals, only the request id to quote.",
);

export const invalidLoginBody = named(
  "InvalidLogin",
  () => z.looseObject({ success: z.literal(false), errors: z.array(z.string()) }),
  "401 of POST /auth/sign_in (Chatwoot's devise_token_auth shape).",
);
