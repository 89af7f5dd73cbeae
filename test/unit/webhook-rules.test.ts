/**
 * The webhook rules that need no store: a url's identity and deliverability, the previous secret's
 * window, the reply view and which events a webhook receives. Scope, status and rotation through
 * the store are in test/integration/webhooks.test.ts and webhooks-ops.test.ts.
 */
import { describe, expect, it, vi } from "vitest";
import { ValidationError } from "../../shared/errors.ts";
import {
  assertDeliverableUrl,
  livePreviousSecret,
  normalizeUrl,
  signingSecrets,
  urlHash,
  view,
  wants,
  WEBHOOK_DEFAULTS,
  withoutExpiredSecret,
  type Webhook,
} from "../../shared/domain/webhooks.ts";

const NOW = 1_800_000_000;

function hook(over: Partial<Webhook> = {}): Webhook {
  return {
    id: 7,
    account_id: 3,
    name: null,
    url: "https://hooks.example.com/in",
    subscriptions: ["message_created", "conversation_created"],
    webhook_type: "account_type",
    inbox_id: null,
    secret: "whsec_new",
    ...WEBHOOK_DEFAULTS,
    created_at: NOW - 100,
    updated_at: NOW - 50,
    ...over,
  };
}

function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error("not refused");
}

describe("a url's identity", () => {
  it("is its WHATWG form, whatever whitespace surrounds it", () => {
    expect(normalizeUrl("  HTTPS://Hooks.Example.COM:443\u00a0")).toBe("https://hooks.example.com/");
    expect(normalizeUrl("\u00a0http://hooks.example.com:80/a?b=1 ")).toBe("http://hooks.example.com/a?b=1");
    expect(urlHash(" HTTPS://Hooks.Example.com:443/a\u00a0")).toBe(urlHash("https://hooks.example.com/a"));
    expect(urlHash("https://hooks.example.com/a")).toMatch(/^[0-9a-f]{64}$/);
    expect(urlHash("https://hooks.example.com/a")).not.toBe(urlHash("https://hooks.example.com/b"));
  });
});

describe("a deliverable url", () => {
  const strict = { allowPrivateNetwork: false };

  it("refuses a literal non-public host, surrounded by whitespace or not, naming the field, code and rule", () => {
    for (const url of ["http://127.0.0.1/x", "\u00a0http://10.0.0.1/ ", " http://[::1]/\u00a0"]) {
      const err = refusal(() => assertDeliverableUrl(url, strict));
      expect(err.status).toBe(422);
      expect(err.body()).toEqual({
        message: "Url is a private, loopback, link-local or reserved address",
        attributes: ["url"],
        errors: [{ field: "url", code: "forbidden_address", message: "is a private, loopback, link-local or reserved address" }],
      });
    }
  });

  it("takes a public host, and any host when the private network is allowed", () => {
    expect(() => assertDeliverableUrl(" https://hooks.example.com/in\u00a0", strict)).not.toThrow();
    expect(() => assertDeliverableUrl("http://127.0.0.1:9/x", { allowPrivateNetwork: true })).not.toThrow();
  });
});

describe("the previous secret's window", () => {
  const rotated = hook({ previous_secret: "whsec_old", previous_secret_expires_at: NOW + 60 });

  it("signs with the current secret, then the previous one while its window runs", () => {
    expect(livePreviousSecret(rotated, NOW)).toBe("whsec_old");
    expect(signingSecrets(rotated, NOW)).toEqual(["whsec_new", "whsec_old"]);
    expect(livePreviousSecret(rotated, NOW + 59)).toBe("whsec_old");
  });

  it("ends at its expiry instant", () => {
    expect(livePreviousSecret(rotated, NOW + 60)).toBeNull();
    expect(signingSecrets(rotated, NOW + 60)).toEqual(["whsec_new"]);
    expect(signingSecrets(hook(), NOW)).toEqual(["whsec_new"]);
  });

  it("is dropped from the webhook once over, and kept while it runs", () => {
    expect(withoutExpiredSecret(rotated, NOW + 60)).toEqual({ ...rotated, previous_secret: null, previous_secret_expires_at: null });
    expect(withoutExpiredSecret(rotated, NOW)).toBe(rotated);
    const plain = hook();
    expect(withoutExpiredSecret(plain, NOW)).toBe(plain);
  });

  it("shows in a reply as its expiry while it runs, as null after; the secret itself never", () => {
    const inside = view(rotated, null, NOW);
    expect(inside.previous_secret_expires_at).toBe(NOW + 60);
    expect(inside).not.toHaveProperty("previous_secret");
    expect(inside).not.toHaveProperty("failing_since");
    expect(inside).not.toHaveProperty("inbox_id");
    expect(view(rotated, null, NOW + 60).previous_secret_expires_at).toBeNull();
  });

  it("shows a reply on the clock's time when none is given", async () => {
    const { setClock } = await import("../../shared/clock.ts");
    try {
      setClock(() => (NOW + 61) * 1000);
      expect(view(rotated, null).previous_secret_expires_at).toBeNull();
      setClock(() => NOW * 1000);
      expect(view(rotated, null).previous_secret_expires_at).toBe(NOW + 60);
    } finally {
      setClock(undefined);
    }
  });
});

describe("the reply's inbox", () => {
  it("is the inbox's reference, null for an account webhook, and {id, name: \"\"} once the inbox is gone", () => {
    const scoped = hook({ webhook_type: "inbox_type", inbox_id: 12 });
    expect(view(scoped, { id: 12, name: "Support" }, NOW).inbox).toEqual({ id: 12, name: "Support" });
    expect(view(scoped, undefined, NOW).inbox).toEqual({ id: 12, name: "" });
    expect(view(hook(), undefined, NOW).inbox).toBeNull();
  });
});

describe("which events a webhook receives", () => {
  it("an account webhook: every subscribed event, from any inbox or none", () => {
    const w = hook();
    expect(wants(w, "message_created", 4)).toBe(true);
    expect(wants(w, "conversation_created", undefined)).toBe(true);
    expect(wants(w, "contact_created", undefined)).toBe(false);
  });

  it("an inbox webhook: subscribed events of its inbox only", () => {
    const w = hook({ webhook_type: "inbox_type", inbox_id: 12 });
    expect(wants(w, "message_created", 12)).toBe(true);
    expect(wants(w, "message_created", 13)).toBe(false);
    expect(wants(w, "message_created", undefined)).toBe(false);
    expect(wants(w, "contact_created", 12)).toBe(false);
  });
});

describe("the grace a rotation may ask for", () => {
  it("is at most seven days", async () => {
    // Loaded in the test, so that the constant is computed while the test runs.
    vi.resetModules();
    const { MAX_GRACE_SECONDS } = await import("../../shared/domain/webhooks.ts");
    const { resetSecretBody } = await import("../../shared/http/schemas/webhooks.ts");
    expect(MAX_GRACE_SECONDS).toBe(604_800);
    expect(resetSecretBody().safeParse({ grace_seconds: 604_800 }).success).toBe(true);
    expect(resetSecretBody().safeParse({ grace_seconds: 604_801 }).success).toBe(false);
  });
});
