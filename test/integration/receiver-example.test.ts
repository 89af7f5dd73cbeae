/**
 * The receiver example of docs/receiving-webhooks.md against the real signer and sender: it
 * accepts a delivery signed during a rotation (two signatures) with either secret, handles a
 * repeated webhook-id once, marks test sends, and refuses a bad signature.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReceiver } from "../../docs/examples/receiver.mjs";
import { newWebhookSecret, signatureHeaders } from "../../shared/delivery/signing.ts";
import { postJson } from "../../shared/delivery/sender.ts";

const oldSecret = newWebhookSecret();
const newSecret = newWebhookSecret();
const handled: { id: string; test: boolean; event: unknown }[] = [];
const servers = [
  createReceiver({ secrets: [oldSecret], onEvent: (event, meta) => handled.push({ ...meta, event }) }),
  createReceiver({ secrets: [newSecret], onEvent: (event, meta) => handled.push({ ...meta, event }) }),
];
const urls: string[] = [];

beforeAll(async () => {
  for (const s of servers) {
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", () => resolve()));
    urls.push(`http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`);
  }
});

afterAll(async () => {
  for (const s of servers) await new Promise((resolve) => s.close(resolve));
});

const send = (url: string, id: string, body: string, secrets: string[], extra: Record<string, string> = {}) =>
  postJson(url, body, { ...signatureHeaders(secrets, id, Math.floor(Date.now() / 1000), body), ...extra }, { timeoutMs: 2000, allowPrivate: true });

const settle = () => new Promise((r) => setTimeout(r, 50));

describe("docs/examples/receiver.mjs", () => {
  it("verifies with either secret during a rotation and handles each webhook-id once", async () => {
    const body = JSON.stringify({ event: "contact_created", id: "1" });
    const rotating = [newSecret, oldSecret];
    const [a, b] = [await send(urls[0]!, "msg_a", body, rotating), await send(urls[1]!, "msg_b", body, rotating)];
    expect([a.status, b.status]).toEqual([204, 204]);
    const again = await send(urls[0]!, "msg_a", body, rotating);
    expect(again.status).toBe(204);
    await settle();
    expect(handled.filter((h) => h.id === "msg_a")).toHaveLength(1);
    expect(handled.filter((h) => h.id === "msg_b")).toHaveLength(1);
  });

  it("passes the test marker on, and refuses a delivery signed with another secret", async () => {
    const body = JSON.stringify({ event: "message_created", id: "1", test: true });
    expect((await send(urls[1]!, "msg_t", body, [newSecret], { "webhook-test": "true" })).status).toBe(204);
    await settle();
    expect(handled.find((h) => h.id === "msg_t")).toMatchObject({ test: true, event: { test: true } });
    const bad = await send(urls[0]!, "msg_x", body, [newSecret]);
    expect(bad.status).toBe(401);
    expect(bad.body).toBe("bad signature");
  });
});
