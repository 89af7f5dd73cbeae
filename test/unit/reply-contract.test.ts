/**
 * api() holds every 2xx reply to the route's declared schema outside production (a mismatch is a
 * 500, so the whole suite checks the contract), and skips the check in production.
 */
import * as z from "zod/mini";
import type { Context } from "aws-lambda";
import { afterEach, describe, expect, it } from "vitest";
import { api, replyMismatch } from "../../shared/http/api.ts";
import { emptyReply, reply } from "../../shared/http/schemas/common.ts";
import { resetConfig } from "../../shared/config.ts";
import { routeById } from "../../shared/routes.ts";
import { eventFor } from "../support/api.ts";

const declared = reply(() => z.looseObject({ plans: z.array(z.looseObject({ slug: z.string() })) }), "plans");
const ctx = { awsRequestId: "t", getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/** A public route's handler that answers `body` with the declared schema above. */
const answering = (body: unknown) => api("checkout.plans", { response: declared }, async () => ({ body }));

describe("reply contract", () => {
  afterEach(() => {
    delete process.env["APP_ENV"];
    delete process.env["ENABLE_THROTTLE"];
    resetConfig();
  });

  it("passes a reply that matches, extra fields included", async () => {
    const res = await answering({ plans: [{ slug: "pro", extra: 1 }], more: true })(eventFor(routeById("checkout.plans")), ctx);
    expect(res.statusCode).toBe(200);
  });

  it("turns a reply that breaks the schema into a 500 outside production", async () => {
    const res = await answering({ plans: [{ name: "no slug" }] })(eventFor(routeById("checkout.plans")), ctx);
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(res.body ?? "")).toMatchObject({ error: "Internal server error" });
  });

  it("does not check in production", async () => {
    process.env["APP_ENV"] = "production";
    process.env["ENABLE_THROTTLE"] = "false";
    resetConfig();
    const res = await answering({ plans: [{ name: "no slug" }] })(eventFor(routeById("checkout.plans")), ctx);
    expect(res.statusCode).toBe(200);
  });

  it("names what is wrong: status, body kind, fields", () => {
    expect(replyMismatch(declared, { status: 201, body: { plans: [] } })).toBe("status 201, declared 200");
    expect(replyMismatch(declared, {})).toBe("an empty body, declared JSON");
    expect(replyMismatch(declared, { text: "x" })).toBe("a text body, declared JSON");
    expect(replyMismatch(emptyReply("gone"), { body: { a: 1 } })).toBe("a JSON body, declared empty");
    expect(replyMismatch(declared, { body: { plans: [{}] } })).toMatch(/^plans\.0\.slug: /);
    expect(replyMismatch(declared, { status: 404, body: "ignored: errors are not replies" })).toBeUndefined();
  });
});
