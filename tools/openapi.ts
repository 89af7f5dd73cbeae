/**
 * The OpenAPI 3.1 document, generated (never written by hand) from THE route table
 * (shared/routes.ts), the schemas each handler module declares to api() (body, query, reply:
 * shared/http/schemas/*), the typed errors (shared/errors.ts) and the rate-limit rules
 * (shared/ratelimit/rules.ts with the documented defaults).
 *
 * `npm run openapi` writes docs/openapi.json, docs/openapi.js (the same document for the
 * reference page docs/index.html, which opens from file:// with no fetch) and docs/vendor/
 * (swagger-ui-dist). The page itself is a plain file of docs/, not generated.
 * It also writes the client package's generated types and operation table (tools/client-types.ts).
 * test/infra/openapi.test.ts fails when the generated files are stale.
 */
import * as z from "zod/mini";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bodyKind, DEFAULT_MAX_BODY_BYTES, pathParams, routes, type Route } from "../shared/routes.ts";
import { apiSpecOf, type ApiSpec } from "../shared/http/api.ts";
import { components, errorBody, internalErrorBody, invalidLoginBody, rateLimitedBody, validationBody } from "../shared/http/schemas/common.ts";
import { configFrom } from "../shared/config.ts";
import { buildRules, type RuleName } from "../shared/ratelimit/rules.ts";
import {
  BadRequest,
  Conflict,
  ForbiddenAccount,
  ForbiddenAction,
  InvalidLogin,
  NotFound,
  PayloadTooLarge,
  RateLimited,
  ServiceUnavailable,
  Unauthorized,
  UnsupportedMediaType,
  ValidationError,
} from "../shared/errors.ts";
import { DELIVERY_ID } from "../shared/domain/deliveries.ts";
import { SEARCH_Q_MISSING } from "../shared/domain/contacts.ts";
import { badEncoding } from "../shared/http/encoding.ts";
import { wholeListQuery } from "../shared/http/schemas/paging.ts";
import { loadHandler } from "../infra/local/handlers.ts";
import { renderClientFiles } from "./client-types.ts";

type Json = Record<string, unknown>;

/** The repository root. */
const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const DOCS_DIR = join(ROOT, "docs");

/** Path parameters that are not per-account integer ids. */
const STRING_PARAMS: Record<string, Json> = {
  delivery_id: { type: "string", pattern: DELIVERY_ID.source, description: "The delivery id (the webhook-id header)" },
  token_id: { type: "string", pattern: "^[0-9a-f]{16}$", description: "The API key id (as listed)" },
  asset: { type: "string", pattern: "^[A-Za-z0-9._-]+$", description: "A file of the checkout page, as the page names it (content-hashed)" },
};

/** The form field of a multipart upload (functions/upload-create.ts reads this part). */
const UPLOAD_FIELD = "attachment";

const TAGS: Record<string, string> = {
  accounts: "Accounts",
  inboxes: "Inboxes",
  webhooks: "Webhooks",
  contacts: "Contacts",
  conversations: "Conversations",
  messages: "Messages",
  upload: "Uploads",
  reports: "Reports",
  widget: "Widget",
  auth: "Authentication",
  access_tokens: "Access tokens",
  checkout: "Public checkout",
  billing: "Billing",
};

const pascal = (id: string): string =>
  id
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");

const ref = (kind: "schemas" | "responses" | "headers" | "securitySchemes", name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** "webhooks.reset_secret" -> "Webhooks: reset secret". */
const summaryOf = (route: Route): string => {
  const [area = "", action = ""] = route.id.split(".");
  return `${TAGS[area] ?? area}: ${action.replace(/_/g, " ")}`;
};

/** Loads every handler module of the table and reads what it declared to api(). */
export async function loadSpecs(): Promise<Map<string, ApiSpec>> {
  const out = new Map<string, ApiSpec>();
  for (const fn of new Set(routes.map((r) => r.fn))) {
    const spec = apiSpecOf(await loadHandler<unknown>(fn));
    if (!spec) throw new Error(`functions/${fn}.ts: its handler is not built with api()`);
    out.set(fn, spec);
  }
  return out;
}

const SAFE_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** zod's output, tidied: no per-schema $schema/$id, no safe-integer bounds zod adds to every int, no empty additionalProperties. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$schema" || k === "$id") continue;
    if ((k === "minimum" || k === "maximum") && typeof v === "number" && SAFE_BOUNDS.has(v)) continue;
    // Loose objects: `additionalProperties: {}` says what its absence says (and swagger-ui would show additionalProp1..3).
    if (k === "additionalProperties" && v && typeof v === "object" && Object.keys(v).length === 0) continue;
    out[k] = tidy(v);
  }
  return out;
}

/** A pipe whose input is a transform (e.g. the webhook body's `{webhook:{...}}` unwrap) is documented by its output side. */
const pipeOverride = (io: "input" | "output") => (ctx: { zodSchema: unknown; jsonSchema: Json }) => {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; in?: { _zod: { def: { type: string } } }; out?: z.ZodMiniType } } })._zod.def;
  if (io === "input" && def.type === "pipe" && def.in?._zod.def.type === "transform" && def.out) {
    for (const k of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[k];
    Object.assign(ctx.jsonSchema, z.toJSONSchema(def.out, { io, unrepresentable: "any", target: "draft-2020-12" }));
  }
};

/** Converts every schema of a registry: `{id: JSON Schema}`, cross-references as component $refs. */
function convert(registry: z.core.$ZodRegistry<{ id: string; description?: string }>, io: "input" | "output"): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
    override: pipeOverride(io),
  });
  return tidy(schemas) as Record<string, Json>;
}

/** Names the request and reply schemas of every route; a schema shared by routes gets one name. */
function nameSchemas(specs: Map<string, ApiSpec>) {
  const replies = z.registry<{ id: string; description?: string }>();
  const bodies = z.registry<{ id: string; description?: string }>();
  // Named schemas register when first built (they are lazy, shared/http/schemas/common.ts): build
  // the error bodies, then every route's reply, in route-table order, before reading the registry.
  for (const build of [errorBody, validationBody, rateLimitedBody, internalErrorBody, invalidLoginBody]) build();
  for (const route of routes) specs.get(route.fn)!.response.schema?.();
  for (const [id, schema] of components._idmap) replies.add(schema, { id, ...(components.get(schema)?.description ? { description: components.get(schema)!.description! } : {}) });
  const replyName = new Map<string, string>();
  const bodyName = new Map<string, string>();
  for (const route of routes) {
    const spec = specs.get(route.fn)!;
    const r = spec.response.schema?.();
    if (r) {
      const existing = replies.get(r)?.id;
      if (!existing) replies.add(r, { id: `${pascal(route.id)}Response` });
      replyName.set(route.id, replies.get(r)!.id);
    }
    const b = spec.body?.();
    if (b && (bodyKind(route) === "json" || bodyKind(route) === "form")) {
      const existing = bodies.get(b)?.id;
      if (!existing) bodies.add(b, { id: `${pascal(route.id)}Body` });
      bodyName.set(route.id, bodies.get(b)!.id);
    }
  }
  const schemas = { ...convert(replies, "output"), ...convert(bodies, "input") };
  return { schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))), replyName, bodyName };
}

function queryParameters(spec: ApiSpec): Json[] {
  if (!spec.query) return [];
  const js = tidy(z.toJSONSchema(spec.query(), { io: "input", unrepresentable: "any", target: "draft-2020-12" })) as {
    properties?: Record<string, Json>;
    required?: string[];
  };
  const whole = spec.query === wholeListQuery;
  return Object.entries(js.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: (js.required ?? []).includes(name),
    schema,
    ...(whole ? { description: "Checked as on every list (a non-integer is 422), but this list is not paged: every item is returned, in Chatwoot's shape without meta" } : {}),
  }));
}

function pathParameters(route: Route): Json[] {
  return pathParams(route.path).map((name) => ({
    name,
    in: "path",
    required: true,
    schema: STRING_PARAMS[name] ? { type: STRING_PARAMS[name]["type"], pattern: STRING_PARAMS[name]["pattern"] } : { type: "integer", minimum: 1 },
    description: (STRING_PARAMS[name]?.["description"] as string | undefined) ?? `Per-account integer id (${name})`,
  }));
}

const rules = buildRules(configFrom({}));

function throttleExtension(route: Route) {
  return (["global", ...route.throttle] as RuleName[]).map((name) => {
    const r = rules[name];
    return { rule: r.name, limit: r.limit, window_seconds: r.windowSeconds, per: r.key, algorithm: r.algorithm };
  });
}

/** Errors a route can answer, by what the table and its declared schemas say about it. */
function errorResponses(route: Route, spec: ApiSpec): Record<string, Json> {
  const hasBody = bodyKind(route) !== "none";
  const mutating = route.method !== "GET";
  const out: Record<string, Json> = {};
  // Any route: a path or query that is not valid UTF-8 or badly percent-encoded; with a body, a malformed one.
  out["400"] = ref("responses", hasBody ? "BadRequest" : "BadEncoding");
  if (route.auth === "api_key") out["401"] = ref("responses", "Unauthorized");
  else if (route.id === "auth.sign_in") out["401"] = ref("responses", "InvalidLogin");
  const extra = new Set(spec.response.errors ?? []);
  if (pathParams(route.path).length > 0 || extra.has(404)) out["404"] = ref("responses", "NotFound");
  if ((mutating && route.auth === "api_key") || extra.has(409)) out["409"] = ref("responses", "Conflict");
  if (hasBody) out["413"] = ref("responses", "PayloadTooLarge");
  if (hasBody) out["415"] = ref("responses", "UnsupportedMediaType");
  if (route.id === "contacts.search") out["422"] = ref("responses", "SearchInvalid");
  else if (spec.body || spec.query || bodyKind(route) === "multipart") out["422"] = ref("responses", "ValidationFailed");
  out["429"] = ref("responses", "RateLimited");
  out["500"] = ref("responses", "InternalError");
  if (route.throttle.some((n) => rules[n as RuleName].failure === "closed") || extra.has(503)) out["503"] = ref("responses", "Unavailable");
  return out;
}

function successResponse(route: Route, spec: ApiSpec, replyName: string | undefined): Record<string, Json> {
  const content: Json = {};
  if (replyName) content["application/json"] = { schema: ref("schemas", replyName) };
  for (const type of spec.response.text === undefined ? [] : (spec.response.textTypes ?? ["text/plain"])) content[type] = { schema: { type: "string" } };
  const description = spec.response.text !== undefined ? `${spec.response.description}. ${spec.response.text}` : spec.response.description;
  // Production counts every request (at least the overall per-IP rule): RateLimit on every reply.
  const headers: Json = { "x-request-id": ref("headers", "RequestId"), RateLimit: ref("headers", "RateLimit") };
  return { [String(spec.response.status)]: { description, headers, ...(Object.keys(content).length ? { content } : {}) } };
}

function requestBody(route: Route, bodyName: string | undefined): Json | undefined {
  const kind = bodyKind(route);
  const limit = `At most ${route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES} bytes.`;
  if (kind === "multipart") {
    return {
      required: true,
      description: limit,
      content: {
        "multipart/form-data": {
          schema: { type: "object", properties: { [UPLOAD_FIELD]: { type: "string", contentMediaType: "application/octet-stream" } }, required: [UPLOAD_FIELD] },
        },
      },
    };
  }
  if (kind === "json" && bodyName) return { required: true, description: limit, content: { "application/json": { schema: ref("schemas", bodyName) } } };
  if (kind === "form" && bodyName) {
    // Chatwoot's form: the same fields as text parts, plus up to 10 files as `attachments[]`.
    const files = { type: "object", properties: { "attachments[]": { type: "array", maxItems: 10, items: { type: "string", contentMediaType: "application/octet-stream" } } } };
    return {
      required: true,
      description: `${limit} JSON, or multipart/form-data with the same fields and \`attachments[]\` files.`,
      content: { "application/json": { schema: ref("schemas", bodyName) }, "multipart/form-data": { schema: { allOf: [ref("schemas", bodyName), files] } } },
    };
  }
  return undefined;
}

function errorComponents() {
  const rl = new RateLimited({ rule: "login_ip", limit: 5, windowSeconds: 300, retryAfterSeconds: 17 });
  const example = (e: { body(): unknown }) => e.body();
  const jsonOf = (schema: string, examples: Record<string, unknown>) => ({
    "application/json": {
      schema: ref("schemas", schema),
      examples: Object.fromEntries(Object.entries(examples).map(([k, v]) => [k, { value: v }])),
    },
  });
  const reqId = { "x-request-id": ref("headers", "RequestId") };
  return {
    responses: {
      BadEncoding: {
        description: "The path or the query is not valid UTF-8, or has a malformed percent-encoding",
        headers: reqId,
        content: jsonOf("Error", { bad_encoding: example(badEncoding("The path")) }),
      },
      BadRequest: {
        description: "The body is not valid JSON, is not valid UTF-8, or is a malformed multipart body; or the path or the query is not valid UTF-8 or badly percent-encoded",
        headers: reqId,
        content: jsonOf("Error", {
          bad_json: example(new BadRequest()),
          bad_encoding: example(badEncoding("The request body")),
          bad_multipart: example(new BadRequest("bad_multipart", "Malformed multipart body")),
        }),
      },
      Unauthorized: {
        description: "Missing or unknown key, key not a member of the account, or role too low",
        headers: reqId,
        content: jsonOf("Error", {
          unauthorized: example(new Unauthorized()),
          forbidden_account: example(new ForbiddenAccount()),
          forbidden_action: example(new ForbiddenAction()),
        }),
      },
      InvalidLogin: { description: "Wrong e-mail or password", headers: reqId, content: jsonOf("InvalidLogin", { invalid: example(new InvalidLogin()) }) },
      NotFound: { description: "No such resource (or another account's)", headers: reqId, content: jsonOf("Error", { not_found: example(new NotFound()) }) },
      Conflict: {
        description: "Another request changed the resource meanwhile, or an Idempotency-Key was reused with another body",
        headers: reqId,
        content: jsonOf("Error", {
          stale: example(new Conflict("The resource was changed by another request; retry", "stale")),
          idempotency_mismatch: example(new Conflict("Idempotency-Key was already used with a different request body", "idempotency_mismatch")),
          rotation_in_progress: example(new Conflict("A secret rotation is in progress (the previous secret is still valid); pass force:true to end it", "rotation_in_progress")),
          webhook_disabled: example(new Conflict("The webhook is disabled: turn it on (status active), then recover", "webhook_disabled")),
        }),
      },
      PayloadTooLarge: { description: "The body is over the route's limit", headers: reqId, content: jsonOf("Error", { too_large: example(new PayloadTooLarge()) }) },
      UnsupportedMediaType: {
        description: "The upload without multipart/form-data, or multipart/form-data where the route takes JSON (or a form-encoded body)",
        headers: reqId,
        content: jsonOf("Error", {
          unsupported: example(new UnsupportedMediaType("Expected multipart/form-data with an attachment part")),
          multipart: example(new UnsupportedMediaType("This endpoint takes a JSON (or form-urlencoded) body, not multipart/form-data")),
        }),
      },
      SearchInvalid: {
        description: "No search string (`q` missing or blank): Chatwoot's body; or a paging or sort parameter at fault",
        headers: reqId,
        content: {
          "application/json": {
            schema: { oneOf: [{ type: "object", properties: { error: { type: "string" } }, required: ["error"] }, ref("schemas", "ValidationErrors")] },
            examples: {
              q_missing: { value: SEARCH_Q_MISSING },
              sort: { value: example(ValidationError.field("sort", "inclusion", "is not included in the list")) },
            },
          },
        },
      },
      ValidationFailed: {
        description: "Validation failed: the fields at fault",
        headers: reqId,
        content: jsonOf("ValidationErrors", { taken: example(ValidationError.field("url", "taken", "has already been taken")) }),
      },
      RateLimited: {
        description: "Throttled (production only): see x-conversa-throttle for the route's rules",
        headers: { ...reqId, "Retry-After": ref("headers", "RetryAfter"), "RateLimit-Policy": ref("headers", "RateLimitPolicy"), RateLimit: ref("headers", "RateLimit") },
        content: jsonOf("RateLimited", { rate_limited: example(rl) }),
      },
      InternalError: {
        description: "Anything else: no internals, the request id to quote",
        headers: reqId,
        content: jsonOf("InternalError", { internal: { error: "Internal server error", request_id: "5f0c6c2e-8d1a-4f64-9a53-0c3c1f1e2b7a" } }),
      },
      Unavailable: {
        description: "A fail-closed rate-limit rule could not be checked (or the request cannot be served now); retry after Retry-After",
        headers: { ...reqId, "Retry-After": ref("headers", "RetryAfter") },
        content: jsonOf("Error", { unavailable: example(new ServiceUnavailable(1)) }),
      },
    },
    headers: {
      RequestId: { description: "The request id (also in the logs)", schema: { type: "string" } },
      RetryAfter: { description: "Seconds to wait", schema: { type: "integer" } },
      RateLimitPolicy: { description: 'IETF RateLimit-Policy: "<rule>";q=<limit>;w=<window s>', schema: { type: "string" } },
      RateLimit: { description: 'IETF RateLimit: "<rule>";r=<remaining>;t=<seconds to reset>', schema: { type: "string" } },
    },
  };
}

export async function buildOpenApi(): Promise<Json> {
  const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string; description: string };
  const specs = await loadSpecs();
  const { schemas, replyName, bodyName } = nameSchemas(specs);
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes as readonly Route[]) {
    const spec = specs.get(route.fn)!;
    const body = requestBody(route, bodyName.get(route.id));
    const op: Json = {
      operationId: route.id,
      summary: summaryOf(route),
      tags: [TAGS[route.id.split(".")[0]!] ?? route.id.split(".")[0]],
      security: route.auth === "api_key" ? [{ api_access_token: [] }] : [],
      parameters: [...pathParameters(route), ...queryParameters(spec)],
      ...(body ? { requestBody: body } : {}),
      responses: { ...successResponse(route, spec, replyName.get(route.id)), ...errorResponses(route, spec) },
      "x-conversa-auth": route.auth,
      ...(route.role ? { "x-conversa-role": route.role } : {}),
      "x-conversa-throttle": throttleExtension(route),
    };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = op;
  }
  const errors = errorComponents();
  return {
    openapi: "3.1.0",
    info: {
      title: "Conversa API",
      version: pkg.version,
      summary: pkg.description,
      description:
        "Generated from the route table and the zod schemas (`npm run openapi`); the guide to the API is [docs/api.md](api.md). " +
        "JSON in and out; every reply has `x-request-id`; replies may carry fields not listed here (never fewer). " +
        "Account endpoints need the `api_access_token` header. Rate limits apply in production only (`x-conversa-throttle`: " +
        "`global` per IP on every route, plus the route's own rules; limits are the documented defaults).",
    },
    servers: [
      { url: "http://localhost:3000", description: "Local sandbox (npm start)" },
      {
        url: "https://{apiId}.execute-api.{region}.amazonaws.com",
        description: "API Gateway (cdk deploy)",
        variables: { apiId: { default: "abc123" }, region: { default: "us-east-1" } },
      },
    ],
    tags: [...new Set(Object.values(TAGS))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      responses: errors.responses,
      headers: errors.headers,
      securitySchemes: {
        api_access_token: { type: "apiKey", in: "header", name: "api_access_token", description: "An API key (POST /auth/sign_in or /api/v1/profile/access_tokens)" },
      },
    },
  };
}

/**
 * The document with every schema `$ref` replaced by its target. swagger-ui resolves 3.1 schema
 * references against the page's URL, which it cannot fetch under file://; inlined, the page needs
 * no fetch at all. (The schemas are not recursive.)
 */
export function inlineSchemaRefs(doc: Json): Json {
  const schemas = (doc["components"] as { schemas: Record<string, unknown> }).schemas;
  const walk = (node: unknown, depth: number): unknown => {
    if (depth > 50) throw new Error("schema references nest too deep (recursive schema?)");
    if (Array.isArray(node)) return node.map((n) => walk(n, depth));
    if (!node || typeof node !== "object") return node;
    const r = (node as Json)["$ref"];
    if (typeof r === "string" && r.startsWith("#/components/schemas/")) {
      const { $ref: _r, ...rest } = node as Json;
      return { ...(walk(schemas[r.slice("#/components/schemas/".length)], depth + 1) as Json), ...(walk(rest, depth) as Json) };
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, depth)]));
  };
  return walk(doc, 0) as Json;
}

/** The generated files, by path under docs/ (docs/index.html, the page that shows them, is not generated). */
export async function renderDocs(): Promise<Record<string, string>> {
  const doc = await buildOpenApi();
  const json = `${JSON.stringify(doc, null, 2)}\n`;
  return {
    "openapi.json": json,
    "openapi.js": `// Generated by npm run openapi: docs/openapi.json with schemas inlined, for index.html (opens from file://, no fetch).\nwindow.CONVERSA_OPENAPI = ${JSON.stringify(inlineSchemaRefs(doc))};\n`,
  };
}

/** swagger-ui-dist files the page loads (its licence goes along). */
export const VENDOR_FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE"];

async function main(): Promise<void> {
  const files = await renderDocs();
  await mkdir(join(DOCS_DIR, "vendor"), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(DOCS_DIR, name), text);
  for (const f of VENDOR_FILES) await copyFile(join(ROOT, "node_modules", "swagger-ui-dist", f), join(DOCS_DIR, "vendor", f));
  const doc = JSON.parse(files["openapi.json"]!) as { paths: Record<string, object> };
  for (const [path, text] of Object.entries(await renderClientFiles(doc))) await writeFile(join(ROOT, path), text);
  const ops = Object.values(doc.paths).reduce((n, p) => n + Object.keys(p).length, 0);
  console.log(`docs/openapi.json: ${ops} operations, ${Buffer.byteLength(files["openapi.json"]!)} bytes; docs/openapi.js, docs/vendor/, client/src/ types`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
