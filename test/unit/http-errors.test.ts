import * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import { parseOr422 } from "../../shared/http/validation.ts";
import { IdempotencyInProgress, RateLimited, Stale, ValidationError } from "../../shared/errors.ts";
import { createInboxBody } from "../../shared/http/schemas/inboxes.ts";
import { intField } from "../../shared/http/schemas/common.ts";

describe("422 rendering", () => {
  it("renders a uniqueness error exactly as the documented example", () => {
    const err = ValidationError.field("url", "taken", "has already been taken");
    expect(err.status).toBe(422);
    expect(err.body()).toEqual({
      message: "Url has already been taken",
      attributes: ["url"],
      errors: [{ field: "url", code: "taken", message: "has already been taken" }],
    });
  });

  it("maps zod issues to fields, codes and messages", async () => {
    const schema = z.object({ name: z.string().check(z.minLength(1)), per: z.number().check(z.maximum(100)), kind: z.enum(["a", "b"]) });
    const run = async () => parseOr422(schema, { name: "", per: 101, kind: "c" });
    const failure = run();
    await expect(failure).rejects.toBeInstanceOf(ValidationError);
    await expect(failure.catch((e: unknown) => (e as ValidationError).body())).resolves.toEqual({
      message: "Name can't be blank, Per must be less than or equal to 100, Kind is not included in the list",
      attributes: ["name", "per", "kind"],
      errors: [
        { field: "name", code: "blank", message: "can't be blank" },
        { field: "per", code: "too_big", message: "must be less than or equal to 100" },
        { field: "kind", code: "inclusion", message: "is not included in the list" },
      ],
    });
  });

  it("says once what two checks both say of one field", () => {
    const schema = z.object({ inbox_id: intField(), other: intField() });
    expect(() => parseOr422(schema, { inbox_id: 1e30, other: 1e300 })).toThrow(
      expect.objectContaining({
        errors: [
          { field: "inbox_id", code: "too_big", message: `must be less than or equal to ${Number.MAX_SAFE_INTEGER}` },
          { field: "other", code: "too_big", message: `must be less than or equal to ${Number.MAX_SAFE_INTEGER}` },
        ],
      }),
    );
  });

  it("names nested fields with dots and rejects non-http(s) urls", () => {
    expect(() => parseOr422(createInboxBody(), { name: "x", channel: { type: "api", website_url: "javascript:alert(1)" } })).toThrow(
      expect.objectContaining({ errors: [{ field: "channel.website_url", code: "invalid", message: "is invalid" }] }),
    );
  });

  it("accepts a valid body and trims names", () => {
    expect(parseOr422(createInboxBody(), { name: "  Help  ", channel: { type: "web_widget", website_url: "https://a.test" } })).toEqual({
      name: "Help",
      channel: { type: "web_widget", website_url: "https://a.test" },
    });
  });

  it("renders 429 with Retry-After and the IETF RateLimit headers", () => {
    const err = new RateLimited({ rule: "coupon", limit: 10, windowSeconds: 600, retryAfterSeconds: 17 });
    expect(err.body()).toEqual({ error: "Too many requests", code: "rate_limited", retry_after: 17 });
    expect(err.headers).toEqual({ "retry-after": "17", "ratelimit-policy": '"coupon";q=10;w=600', ratelimit: '"coupon";r=0;t=17' });
  });
});

describe("409s a client retries", () => {
  it("stale and idempotency_in_progress say when to retry; their bodies carry the code", () => {
    for (const [err, code] of [[new Stale(), "stale"], [new IdempotencyInProgress(), "idempotency_in_progress"]] as const) {
      expect(err.status).toBe(409);
      expect(err.headers).toEqual({ "retry-after": "1" });
      expect(err.body()).toMatchObject({ code });
    }
  });
});
