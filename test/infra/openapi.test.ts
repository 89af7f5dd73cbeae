/**
 * docs/openapi.json is generated (tools/openapi.ts) and checked in: it must be fresh, cover every
 * route of the table with its schemas, auth and throttle rules, and be structurally valid OpenAPI 3.1.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { buildOpenApi, DOCS_DIR, renderDocs, VENDOR_FILES } from "../../tools/openapi.ts";
import { renderClientFiles } from "../../tools/client-types.ts";
import { bodyKind, pathParams, routes, type Route } from "../../shared/routes.ts";
import { errorBody, internalErrorBody, invalidLoginBody, rateLimitedBody, validationBody } from "../../shared/http/schemas/common.ts";
import { BadRequest, ForbiddenAccount, InvalidLogin, NotFound, RateLimited, ValidationError } from "../../shared/errors.ts";

type Json = Record<string, any>;
const table: readonly Route[] = routes;

let doc: Json;
beforeAll(async () => {
  doc = JSON.parse(await readFile(join(DOCS_DIR, "openapi.json"), "utf8")) as Json;
});

const opOf = (r: Route): Json => doc["paths"]?.[r.path]?.[r.method.toLowerCase()];

/** Follows a local `#/...` pointer; undefined when it leads nowhere. */
function resolvePointer(root: Json, pointer: string): unknown {
  if (!pointer.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of pointer.slice(2).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (!node || typeof node !== "object" || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (node && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

describe("docs/openapi.json", () => {
  it("is what npm run openapi generates now (regenerate and commit when this fails)", async () => {
    // Arrange
    const files = await renderDocs();
    // Act
    const onDisk = await Promise.all(Object.keys(files).map((name) => readFile(join(DOCS_DIR, name), "utf8")));
    // Assert
    expect(onDisk).toEqual(Object.values(files));
  });

  it("the client's generated types and operation table are what npm run openapi generates now", async () => {
    // Arrange
    const files = await renderClientFiles(doc);
    // Act
    const onDisk = await Promise.all(Object.keys(files).map((path) => readFile(join(DOCS_DIR, "..", path), "utf8")));
    // Assert
    expect(onDisk).toEqual(Object.values(files));
  });

  it("is structurally OpenAPI 3.1: version, info, paths, unique operationIds, every $ref resolves", () => {
    const ids = Object.values(doc["paths"] as Json).flatMap((p: Json) => Object.values(p).map((o: Json) => o["operationId"] as string));
    const refs = refsIn(doc);

    expect(doc["openapi"]).toMatch(/^3\.1\.\d+$/);
    expect(doc["info"]).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(new Set(ids).size).toBe(ids.length);
    expect(refs.length).toBeGreaterThan(100);
    expect(refs.filter((r) => resolvePointer(doc, r) === undefined)).toEqual([]);
  });

  it("has every route of the table, and nothing else, with its method and path", () => {
    const documented = Object.entries(doc["paths"] as Json).flatMap(([path, ops]) => Object.keys(ops as Json).map((m) => `${m.toUpperCase()} ${path}`));

    expect(documented.sort()).toEqual(table.map((r) => `${r.method} ${r.path}`).sort());
    expect(table.map((r) => opOf(r)["operationId"])).toEqual(table.map((r) => r.id));
  });

  it("gives each operation its auth kind, role, security and throttle rules (global first)", () => {
    for (const r of table) {
      const op = opOf(r);
      expect(op["x-conversa-auth"], r.id).toBe(r.auth);
      expect(op["x-conversa-role"], r.id).toBe(r.role);
      expect(op["security"], r.id).toEqual(r.auth === "api_key" ? [{ api_access_token: [] }] : []);
      expect(op["x-conversa-throttle"].map((t: Json) => t["rule"]), r.id).toEqual(["global", ...r.throttle]);
      for (const t of op["x-conversa-throttle"]) expect(t, r.id).toMatchObject({ limit: expect.any(Number), window_seconds: expect.any(Number) });
    }
    expect(doc["components"]["securitySchemes"]["api_access_token"]).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "api_access_token" }));
  });

  it("gives each operation its path parameters, its request body schema and a 2xx reply", () => {
    for (const r of table) {
      const op = opOf(r);
      const inPath = (op["parameters"] as Json[]).filter((p) => p["in"] === "path").map((p) => p["name"]);
      const ok = Object.keys(op["responses"]).filter((s) => s.startsWith("2"));
      expect(inPath, r.id).toEqual(pathParams(r.path));
      expect(ok, r.id).toHaveLength(1);
      expect(op["responses"]["500"], r.id).toEqual({ $ref: "#/components/responses/InternalError" });
      expect(op["responses"]["429"], r.id).toEqual({ $ref: "#/components/responses/RateLimited" });
      if (bodyKind(r) === "multipart") expect(Object.keys(op["requestBody"]["content"]), r.id).toEqual(["multipart/form-data"]);
      if (bodyKind(r) === "none") expect(op["requestBody"], r.id).toBeUndefined();
    }
  });

  it("documents the JSON body of every route that validates one", () => {
    const withBody = table.filter((r) => opOf(r)["requestBody"]?.["content"]?.["application/json"]);
    for (const r of withBody) {
      const schema = resolvePointer(doc, opOf(r)["requestBody"]["content"]["application/json"]["schema"]["$ref"]) as Json;
      expect(schema["type"], r.id).toBe("object");
    }
    expect(withBody.map((r) => r.id)).toEqual(expect.arrayContaining(["webhooks.create", "contacts.create", "checkout.subscribe", "auth.sign_in", "messages.create"]));
  });

  it("documents a reply schema for every route except the two with an empty body and the checkout page's (HTML, script, style)", () => {
    const empty = table.filter((r) => {
      const ok = Object.entries(opOf(r)["responses"] as Json).find(([s]) => s.startsWith("2"))![1] as Json;
      return !ok["content"]?.["application/json"];
    });
    expect(empty.map((r) => r.id).sort()).toEqual(["access_tokens.revoke", "checkout.asset", "checkout.page", "webhooks.delete"]);
  });

  it("documents the webhook object with its fields", () => {
    const w = doc["components"]["schemas"]["Webhook"];
    expect(w["required"]).toEqual(
      expect.arrayContaining(["id", "name", "url", "account_id", "subscriptions", "webhook_type", "inbox", "secret", "created_at", "updated_at"]),
    );
  });

  it("has the vendor files the page loads, and the page embeds the document with schemas inlined (no fetch)", async () => {
    const html = await readFile(join(DOCS_DIR, "index.html"), "utf8");
    const js = await readFile(join(DOCS_DIR, "openapi.js"), "utf8");
    const vendor = await Promise.all(VENDOR_FILES.map((f) => readFile(join(DOCS_DIR, "vendor", f))));

    expect(html).toContain('src="vendor/swagger-ui-bundle.js"');
    expect(html).toContain('src="openapi.js"');
    expect(html).toContain("spec: window.CONVERSA_OPENAPI");
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    expect(js).toContain(`"operationId":"webhooks.create"`);
    expect(js).not.toContain(`"$ref":"#/components/schemas/`);
    expect(vendor.every((b) => b.length > 0)).toBe(true);
  });

  it("is deterministic: two builds give the same document", async () => {
    const [a, b] = await Promise.all([buildOpenApi(), buildOpenApi()]);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});

describe("documented error bodies", () => {
  it("match what the typed errors render", () => {
    const cases: [z.ZodMiniType, unknown][] = [
      [errorBody(), new BadRequest().body()],
      [errorBody(), new NotFound().body()],
      [errorBody(), new ForbiddenAccount().body()],
      [validationBody(), ValidationError.field("url", "taken", "has already been taken").body()],
      [rateLimitedBody(), new RateLimited({ rule: "global", limit: 1, windowSeconds: 60, retryAfterSeconds: 3 }).body()],
      [invalidLoginBody(), new InvalidLogin().body()],
      [internalErrorBody(), { error: "Internal server error", request_id: "r" }],
    ];
    expect(cases.map(([schema, body]) => schema.safeParse(body).success)).toEqual(cases.map(() => true));
  });
});
