import { describe, expect, it } from "vitest";
import { EVENT_NAMES } from "../../shared/events/catalog.ts";
import { PAYLOAD_BUILDERS, checkPayload, payloadSchema } from "../../shared/events/payloads.ts";
import { outboxItem } from "../../shared/events/outbox.ts";
import { inboxPayload } from "../../shared/domain/inboxes.ts";

const account = { id: 3, name: "Acme", locale: "en", status: "active" as const, created_at: 1, custom_attributes: {} };
const inbox = {
  id: 9, account_id: 3, name: "Web", channel_type: "Channel::Api", website_url: null, website_token: null,
  greeting_enabled: false, greeting_message: null, created_at: 1, updated_at: 1,
};

describe("event payload schemas", () => {
  it("has one schema per event of the catalog", () => {
    expect(Object.keys(PAYLOAD_BUILDERS).sort()).toEqual([...EVENT_NAMES].sort());
  });

  it("builds each event's schema once, on first use, checking that event's name", () => {
    for (const event of EVENT_NAMES) {
      const schema = payloadSchema(event);
      expect(payloadSchema(event)).toBe(schema);
      const other = EVENT_NAMES.find((e) => e !== event)!;
      expect(schema.safeParse({ event: other, id: "1" }).success).toBe(false);
      expect(schema.safeParse({ event, id: "" }).success).toBe(false);
    }
  });

  it("accepts the inbox builders' payloads, with unknown fields", () => {
    const e = inboxPayload("inbox_created", inbox, account);
    expect(() => checkPayload("inbox_created", e.payload)).not.toThrow();
    expect(() => checkPayload("inbox_updated", inboxPayload("inbox_updated", inbox, account).payload)).not.toThrow();
  });

  it("accepts a message payload shaped as documented, and rejects one with a numeric top-level id", () => {
    const msg = {
      event: "message_created", id: "12", content: "hi", message_type: "incoming", content_type: "text",
      content_attributes: {}, private: false, created_at: 1700000000, source_id: null,
      sender: { id: 4, name: "Jane", type: "contact" }, conversation: { id: 5, status: "open", inbox_id: 9 },
      inbox: { id: 9, name: "Web" }, account: { id: 3, name: "Acme" },
    };
    expect(() => checkPayload("message_created", msg)).not.toThrow();
    expect(() => checkPayload("message_created", { ...msg, id: 12 })).toThrow(/message_created.*id/);
    expect(() => checkPayload("message_created", { ...msg, message_type: "sideways" })).toThrow(/message_type/);
  });

  it("makes the outbox writer refuse a webhook event whose payload does not match", () => {
    const good = inboxPayload("inbox_created", inbox, account);
    expect(outboxItem(good, Date.now()).event).toBe("inbox_created");
    const { channel_type: _drop, ...missing } = good.payload;
    expect(() => outboxItem({ ...good, payload: { ...missing, event: "inbox_created", id: "9" } }, Date.now())).toThrow(/channel_type/);
    expect(() => outboxItem({ ...good, event: "inbox_updated" }, Date.now())).toThrow(/payload.event/);
  });

  it("lets operator events through unchecked", () => {
    const item = outboxItem({ event: "quote_requested", accountId: 0, payload: { event: "quote_requested", id: "q1" } }, Date.now());
    expect(item.event).toBe("quote_requested");
  });
});

describe("the samples a webhook's test send delivers", () => {
  it("have every field a real payload of their event has, and say they are a test", async () => {
    const { samplePayload } = await import("../../shared/domain/test-sends.ts");
    const { WEBHOOK_DEFAULTS } = await import("../../shared/domain/webhooks.ts");
    const hook = {
      id: 1, account_id: 3, name: null, url: "https://hooks.example.com/", subscriptions: [...EVENT_NAMES], webhook_type: "inbox_type" as const,
      inbox_id: 9, secret: "whsec_x", ...WEBHOOK_DEFAULTS, created_at: 1, updated_at: 1,
    };
    for (const event of EVENT_NAMES) {
      const sample = samplePayload(event, hook, 1_800_000_000);
      expect(() => checkPayload(event, sample), event).not.toThrow();
      expect(sample).toMatchObject({ event, test: true, account: { id: 3 } });
    }
  });
});
