/**
 * Property test over the route table, through the sandbox over real HTTP: whatever the body
 * (arbitrary JSON, arbitrary bytes, invalid UTF-8, huge numbers, deep nesting, prototype keys),
 * the query and the path parameters (arbitrary strings, percent-encodings), the answer is never a
 * 5xx and an error has its documented shape.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { pathParams, routes, type Route } from "../../shared/routes.ts";

/** Runs per route: bounded so that the whole file stays well under a minute. */
const RUNS = 30;

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox("prop");
});

afterAll(async () => {
  await sandbox?.stop();
});

/** Percent-encodes the string's UTF-8 bytes (a lone surrogate becomes U+FFFD's bytes, as a client would send). */
const encode = (s: string) => [...Buffer.from(s, "utf8")].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0").toUpperCase()}`)).join("");

const rawEscapes = fc.constantFrom("%E0%A4%A", "%FF", "%C3%28", "%", "%zz", "%2F", "%00", "%ED%A0%80", "%EF%BF%BD", "..", "%2e%2e");

/** A path parameter as sent on the wire (already encoded). */
const pathParam = fc.oneof(
  fc.integer({ min: 1, max: 3 }).map(String),
  fc.integer({ min: -5, max: 2 ** 60 }).map(String),
  fc.string({ minLength: 1, maxLength: 12, unit: "binary" }).map(encode),
  fc.tuple(fc.string({ maxLength: 4 }).map(encode), rawEscapes, fc.string({ maxLength: 4 }).map(encode)).map(([a, b, c]) => `${a}${b}${c}`),
);

const queryKey = fc.oneof(fc.constantFrom("q", "page", "per", "status", "inbox_id", "assignee_type", "metric", "since", "until", "type", "id", "sort", "cursor", "token", "email"), fc.string({ maxLength: 6 }));
const queryValue = fc.oneof(
  fc.string({ maxLength: 20, unit: "binary" }).map(encode),
  fc.constantFrom("1", "0", "-1", "1e400", "99999999999999999999", "open", "all", "", "%"),
  rawEscapes,
);
const queryString = fc.array(fc.tuple(queryKey.map(encode), queryValue), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("&"));

const protoKeys = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty");
const deep = fc.integer({ min: 50, max: 3000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`);
const deepObject = fc.integer({ min: 50, max: 2000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`);
const hugeNumbers = fc.constantFrom("1e400", "-1e400", "123456789012345678901234567890", "0.0000000000000000000000000001", "1E308", "-0");

/** Known fields of the routes' bodies with odd values, so that validation passes now and then and the handlers run. */
const fieldNames = fc.constantFrom("name", "email", "content", "status", "inbox_id", "contact_id", "assignee_id", "url", "subscriptions", "message", "channel", "phone_number", "identifier", "priority", "password", "token", "plan", "coupon", "typing_status", "webhook_type", "message_type", "private", "snoozed_until");
const attributeMaps = fc.constantFrom("custom_attributes", "additional_attributes", "content_attributes");
const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ maxLength: 30, unit: "binary" }),
  hugeNumbers.map((n) => JSON.parse(n) as number),
);
/** Attribute maps with huge numbers, deep nesting and prototype keys, as raw JSON text. */
const attributeBody = fc
  .tuple(attributeMaps, fc.oneof(protoKeys, fc.string({ maxLength: 5 })), fc.oneof(hugeNumbers, deepObject, deep, fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null")))
  .map(([field, key, value]) => Buffer.from(`{"${field}":{${JSON.stringify(key)}:${value}}}`));
const fieldsBody = fc.dictionary(fc.oneof(fieldNames, protoKeys), fieldValue, { maxKeys: 5 }).map((o) => Buffer.from(JSON.stringify(o)));

const bodyBytes = fc.oneof(
  fieldsBody,
  attributeBody,
  fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v) ?? "null")),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc.tuple(fieldNames, fc.uint8Array({ minLength: 1, maxLength: 6 })).map(([k, b]) => Buffer.concat([Buffer.from(`{"${k}":"`), Buffer.from(b), Buffer.from('"}')])),
  fc.tuple(fieldNames, hugeNumbers).map(([k, n]) => Buffer.from(`{"${k}":${n}}`)),
  fc.oneof(deep, deepObject).map((s) => Buffer.from(s)),
  fc.tuple(protoKeys, fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => Buffer.from(`{"${k}":${JSON.stringify(v) ?? "null"}}`)),
  fc.constant(Buffer.alloc(0)),
);

interface Req {
  readonly params: Record<string, string>;
  readonly query: string;
  readonly body: Buffer;
  readonly contentType: string;
}

const requestFor = (route: Route): fc.Arbitrary<Req> =>
  fc.record({
    params: fc.record(Object.fromEntries(pathParams(route.path).filter((p) => p !== "account_id").map((p) => [p, pathParam]))) as fc.Arbitrary<Record<string, string>>,
    query: queryString,
    body: bodyBytes,
    contentType: fc.constantFrom("application/json", "text/plain", "application/octet-stream", "multipart/form-data; boundary=x"),
  });

function urlOf(route: Route, req: Req): string {
  const path = route.path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => (name === "account_id" ? String(sandbox.info.accountId) : req.params[name]!));
  return `${sandbox.info.apiBase.replace("localhost", "127.0.0.1")}${path}${req.query ? `?${req.query}` : ""}`;
}

/** The documented error bodies: {error, code}; 422 {message, attributes, errors}; the sign-in 401; the search-q 422. */
function shapeProblem(route: Route, status: number, text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 80)}`;
  }
  const b = body as Record<string, unknown>;
  const isStr = (k: string) => typeof b[k] === "string";
  if (status === 422) {
    if (isStr("message") && Array.isArray(b["attributes"]) && Array.isArray(b["errors"])) return undefined;
    if (route.id === "contacts.search" && isStr("error")) return undefined;
    return `422 body ${text.slice(0, 120)}`;
  }
  if (status === 401 && route.id === "auth.sign_in" && b["success"] === false && Array.isArray(b["errors"])) return undefined;
  if (isStr("error") && isStr("code")) return undefined;
  return `${status} body ${text.slice(0, 120)}`;
}

// Destructive routes last: a revoked key or a deleted webhook would only narrow what follows.
const ordered = [...routes].sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));

describe("any request to any route", () => {
  it.each(ordered.map((r) => [r.id, r] as const))("%s: no 5xx, documented error bodies", { timeout: 60_000 }, async (_id, route) => {
    await fc.assert(
      fc.asyncProperty(requestFor(route), async (req) => {
        const hasBody = route.method !== "GET" && route.method !== "DELETE";
        const res = await fetch(urlOf(route, req), {
          method: route.method,
          headers: { "content-type": req.contentType, api_access_token: sandbox.info.adminApiKey },
          ...(hasBody ? { body: req.body } : {}),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        expect(res.status, text.slice(0, 200)).toBeLessThan(500);
        if (res.status >= 400) expect(shapeProblem(route, res.status, text)).toBeUndefined();
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});
