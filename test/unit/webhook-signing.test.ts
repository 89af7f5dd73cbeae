import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { newWebhookSecret, sign, signatureHeaders } from "../../shared/delivery/signing.ts";

// The Standard Webhooks reference test vector (libraries/javascript/src/webhook.test.ts, "sign function works").
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

describe("Standard Webhooks signing", () => {
  it("matches the reference test vector", () => {
    expect(sign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload)).toBe(VECTOR.signature);
  });

  it("matches the reference implementation's sign() for a fresh secret and payload", () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ event: "inbox_created", id: "7", name: "Ünïcode ✓" });
    const ts = 1_700_000_123;
    expect(sign(secret, "msg_abc", ts, body)).toBe(new Webhook(secret).sign("msg_abc", new Date(ts * 1000), body));
  });

  it("produces headers the reference verify() accepts, and a tampered body it rejects", () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ event: "contact_created", id: "1" });
    const headers = signatureHeaders(secret, "msg_1", Math.floor(Date.now() / 1000), body);
    const wh = new Webhook(secret);
    expect(wh.verify(body, headers)).toEqual({ event: "contact_created", id: "1" });
    expect(() => wh.verify(body.replace('"1"', '"2"'), headers)).toThrow();
  });

  it("signs with every secret of a rotation, new first, space-separated: a receiver with either secret verifies", () => {
    const [next, previous] = [newWebhookSecret(), newWebhookSecret()];
    const body = JSON.stringify({ event: "message_created", id: "9" });
    const ts = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders([next, previous], "msg_rot", ts, body);
    expect(headers).toEqual({
      "webhook-id": "msg_rot",
      "webhook-timestamp": String(ts),
      "webhook-signature": `${sign(next, "msg_rot", ts, body)} ${sign(previous, "msg_rot", ts, body)}`,
    });
    for (const secret of [next, previous]) expect(new Webhook(secret).verify(body, headers)).toEqual({ event: "message_created", id: "9" });
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it("makes whsec_ secrets of 32 random bytes", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });
});
