/**
 * The recommended client (client/) against the real sandbox over HTTP: one call per operation of
 * the route table, cursor paging, typed errors, webhook verification on a real delivery, and the
 * idempotent subscribe surviving a lost reply. Retries on 429 run in test/e2e/client-retry.test.ts.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { routes } from "../../shared/routes.ts";
import { signatureHeaders } from "../../shared/delivery/signing.ts";
import { ConversaError, createClient, OPERATIONS, verifyWebhook, WebhookVerificationError, type ConversaClient } from "../../client/src/index.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";

let sandbox: Sandbox;
let receiver: Receiver;
const suffix = Math.random().toString(36).slice(2, 8);

beforeAll(async () => {
  sandbox = await startTestSandbox("e2e-cl");
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await sandbox?.stop();
});

const baseUrl = () => sandbox.info.apiBase.replace("localhost", "127.0.0.1");
const clientAs = (apiKey: string | undefined, fetchImpl?: typeof fetch): ConversaClient =>
  createClient({
    baseUrl: baseUrl(),
    ...(apiKey !== undefined ? { apiKey } : {}),
    accountId: sandbox.info.accountId,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    retry: { attempts: 1 },
  });

/** What the calls below learn and pass on (ids of what earlier calls created). */
interface Ctx {
  readonly agent: ConversaClient;
  readonly admin: ConversaClient;
  readonly anonymous: ConversaClient;
  readonly ids: Record<string, number | string>;
}
type Call = (ctx: Ctx) => Promise<unknown>;

const id = (ctx: Ctx, name: string): number => ctx.ids[name] as number;
const str = (ctx: Ctx, name: string): string => ctx.ids[name] as string;

/**
 * One call per operation, in the order they run (later calls use what earlier ones created).
 * A route added to the table needs its call here: the coverage test below names it.
 */
const CALLS: Record<string, Call> = {
  "accounts.show": ({ agent }) => agent.call("accounts.show"),
  "auth.sign_in": async (ctx) => {
    const r = await ctx.anonymous.call("auth.sign_in", { body: { email: sandbox.info.agentEmail, password: sandbox.info.password } });
    ctx.ids["agentUserId"] = r.data.id;
    return r;
  },
  "webhooks.create": async (ctx) => {
    const r = await ctx.admin.call("webhooks.create", { body: { url: receiver.url, subscriptions: ["contact_created"] } });
    ctx.ids["webhookId"] = r.payload.webhook.id;
    ctx.ids["secret"] = r.payload.webhook.secret;
    return r;
  },
  "webhooks.list": ({ admin }) => admin.call("webhooks.list"),
  "webhooks.show": (ctx) => ctx.admin.call("webhooks.show", { path: { webhook_id: id(ctx, "webhookId") } }),
  "webhooks.update": (ctx) => ctx.admin.call("webhooks.update", { path: { webhook_id: id(ctx, "webhookId") }, body: { name: "client test" } }),
  "inboxes.create": async (ctx) => {
    const r = await ctx.agent.call("inboxes.create", { body: { name: `Client ${suffix}`, channel: { type: "web_widget", website_url: "https://shop.example.com" } } });
    ctx.ids["inboxId"] = r.id;
    ctx.ids["websiteToken"] = r.website_token ?? "";
    return r;
  },
  "inboxes.list": ({ agent }) => agent.call("inboxes.list"),
  "inboxes.show": (ctx) => ctx.agent.call("inboxes.show", { path: { inbox_id: id(ctx, "inboxId") } }),
  "inboxes.update": (ctx) => ctx.agent.call("inboxes.update", { path: { inbox_id: id(ctx, "inboxId") }, body: { greeting_enabled: true, greeting_message: "Olá" } }),
  "contacts.create": async (ctx) => {
    const r = await ctx.agent.call("contacts.create", { body: { name: "Clara Client", email: `clara-${suffix}@client.test` } });
    ctx.ids["contactId"] = r.payload.contact.id;
    return r;
  },
  "contacts.list": ({ agent }) => agent.call("contacts.list", { query: { per: 5 } }),
  "contacts.search": ({ agent }) => agent.call("contacts.search", { query: { q: "Clara" } }),
  "contacts.show": (ctx) => ctx.agent.call("contacts.show", { path: { contact_id: id(ctx, "contactId") } }),
  "contacts.update": (ctx) => ctx.agent.call("contacts.update", { path: { contact_id: id(ctx, "contactId") }, body: { phone_number: "+14155550123" } }),
  "contacts.replace": (ctx) => ctx.agent.call("contacts.replace", { path: { contact_id: id(ctx, "contactId") }, body: { name: "Clara C." } }),
  "conversations.create": async (ctx) => {
    const r = await ctx.agent.call("conversations.create", { body: { inbox_id: id(ctx, "inboxId"), contact_id: id(ctx, "contactId") } });
    ctx.ids["conversationId"] = r.id;
    return r;
  },
  "conversations.list": ({ agent }) => agent.call("conversations.list"),
  "conversations.meta": ({ agent }) => agent.call("conversations.meta"),
  "conversations.show": (ctx) => ctx.agent.call("conversations.show", { path: { conversation_id: id(ctx, "conversationId") } }),
  "conversations.update": (ctx) => ctx.agent.call("conversations.update", { path: { conversation_id: id(ctx, "conversationId") }, body: { priority: "high" } }),
  "messages.create": async (ctx) => {
    const r = await ctx.agent.call("messages.create", { path: { conversation_id: id(ctx, "conversationId") }, body: { content: "Hello from the client", message_type: "incoming" } });
    ctx.ids["messageId"] = r.id;
    return r;
  },
  "messages.list": (ctx) => ctx.agent.call("messages.list", { path: { conversation_id: id(ctx, "conversationId") } }),
  "messages.update": (ctx) =>
    ctx.agent.call("messages.update", { path: { conversation_id: id(ctx, "conversationId"), message_id: id(ctx, "messageId") }, body: { content: "Hello again" } }),
  "conversations.toggle_typing_status": (ctx) =>
    ctx.agent.call("conversations.toggle_typing_status", { path: { conversation_id: id(ctx, "conversationId") }, body: { typing_status: "on" } }),
  "conversations.assignments": (ctx) =>
    ctx.agent.call("conversations.assignments", { path: { conversation_id: id(ctx, "conversationId") }, body: { assignee_id: id(ctx, "agentUserId") } }),
  "conversations.toggle_status": (ctx) =>
    ctx.agent.call("conversations.toggle_status", { path: { conversation_id: id(ctx, "conversationId") }, body: { status: "resolved" } }),
  "conversations.transcript": (ctx) => ctx.agent.call("conversations.transcript", { path: { conversation_id: id(ctx, "conversationId") } }),
  "upload.create": (ctx) => {
    const form = new FormData();
    form.append("attachment", new Blob(["hello"], { type: "text/plain" }), "hello.txt");
    return ctx.agent.call("upload.create", { body: form });
  },
  "reports.show": ({ agent }) => {
    const now = Math.floor(Date.now() / 1000);
    return agent.call("reports.show", { query: { metric: "conversations_count", since: String(now - 86_400), until: String(now) } });
  },
  "widget.events": (ctx) => ctx.anonymous.call("widget.events", { query: { website_token: str(ctx, "websiteToken") }, body: { name: "webwidget.triggered" } }),
  "webhooks.deliveries": async (ctx) => {
    await receiver.waitFor(1, 10_000, (r) => r.json.event === "contact_created");
    const r = await ctx.admin.call("webhooks.deliveries", { path: { webhook_id: id(ctx, "webhookId") } });
    ctx.ids["deliveryId"] = r.payload[0]?.id ?? "";
    return r;
  },
  "webhooks.resend": (ctx) => ctx.admin.call("webhooks.resend", { path: { webhook_id: id(ctx, "webhookId"), delivery_id: str(ctx, "deliveryId") } }),
  "webhooks.attempts": (ctx) => ctx.admin.call("webhooks.attempts", { path: { webhook_id: id(ctx, "webhookId"), delivery_id: str(ctx, "deliveryId") } }),
  "webhooks.test": (ctx) => ctx.admin.call("webhooks.test", { path: { webhook_id: id(ctx, "webhookId") }, body: { event: "contact_created" } }),
  "webhooks.recover": (ctx) =>
    ctx.admin.call("webhooks.recover", { path: { webhook_id: id(ctx, "webhookId") }, body: { since: Math.floor(Date.now() / 1000) - 3600 } }),
  "webhooks.reset_secret": (ctx) => ctx.admin.call("webhooks.reset_secret", { path: { webhook_id: id(ctx, "webhookId") }, body: {} }),
  "webhooks.delete": (ctx) => ctx.admin.call("webhooks.delete", { path: { webhook_id: id(ctx, "webhookId") } }),
  "access_tokens.create": async (ctx) => {
    const r = await ctx.agent.call("access_tokens.create", { body: { name: "client test" } });
    ctx.ids["tokenId"] = r.id;
    return r;
  },
  "access_tokens.list": ({ agent }) => agent.call("access_tokens.list"),
  "access_tokens.revoke": (ctx) => ctx.agent.call("access_tokens.revoke", { path: { token_id: str(ctx, "tokenId") } }),
  "checkout.plans": ({ anonymous }) => anonymous.call("checkout.plans"),
  "checkout.coupon": ({ anonymous }) => anonymous.call("checkout.coupon", { body: { code: "BEMVINDO15", plan: "profissional", billing_cycle: "monthly" } }),
  "checkout.link": async (ctx) => {
    const r = await ctx.anonymous.call("checkout.link", {
      body: { plan: "profissional", billing_cycle: "monthly", customer: { name: "Rui Reis", email: `rui-${suffix}@client.test`, phone: "+55 11 91234-5678", cnpj: "11.222.333/0001-81" } },
    });
    ctx.ids["linkToken"] = new URL(r.url).searchParams.get("token") ?? "";
    return r;
  },
  "checkout.prefill": (ctx) => ctx.anonymous.call("checkout.prefill", { query: { token: str(ctx, "linkToken") } }),
  "checkout.subscribe": (ctx) =>
    ctx.anonymous.call("checkout.subscribe", {
      body: {
        plan: "profissional",
        billing_cycle: "monthly",
        account_name: `Client ${suffix}`,
        user: { name: "Rui Reis", email: `rui-${suffix}@client.test`, password: "a-long-password-1" },
        customer: { name: "Rui Reis", email: `rui-${suffix}@client.test`, phone: "+55 11 91234-5678", cnpj: "11.222.333/0001-81" },
      },
    }),
  "checkout.page": async (ctx) => {
    const html = String(await ctx.anonymous.call("checkout.page"));
    ctx.ids["pageScript"] = /\/checkout\/(app\.[0-9a-f]+\.js)/.exec(html)?.[1] ?? "missing";
  },
  "checkout.asset": (ctx) => ctx.anonymous.call("checkout.asset", { path: { asset: str(ctx, "pageScript") } }),
  "checkout.quote": ({ anonymous }) => anonymous.call("checkout.quote", { body: { name: "Rui Reis", email: `rui-${suffix}@client.test`, message: "Fifty inboxes, please" } }),
  "billing.coupon": ({ admin }) => admin.call("billing.coupon", { body: { code: "DESCONTO100" } }),
  "auth.password_request": ({ anonymous }) => anonymous.call("auth.password_request", { body: { email: sandbox.info.agentEmail } }),
  "auth.password_reset": ({ anonymous }) =>
    anonymous.call("auth.password_reset", { body: { reset_password_token: "not-a-token", password: "a fresh password", password_confirmation: "a fresh password" } }),
};

/** Calls refused by design (the client reaches the route; the reply is a typed error): an unknown reset token. */
const REFUSED: Record<string, string> = { "auth.password_reset": "422 validation_failed" };

describe("the client covers the route table", () => {
  it("has an operation for every route of the table, with its method and path", () => {
    const table = routes.map((r) => `${r.id} ${r.method} ${r.path}`).sort();

    const ops = Object.values(OPERATIONS).map((o) => `${o.id} ${o.method} ${o.path}`).sort();

    expect(ops, "regenerate with npm run openapi").toEqual(table);
  });

  it("has one call below for every route of the table (a route without one is named here)", () => {
    const missing = routes.map((r) => r.id).filter((routeId) => !(routeId in CALLS));
    const unknown = Object.keys(CALLS).filter((callId) => !routes.some((r) => r.id === callId));

    expect(missing, `routes without a client call in test/e2e/client.test.ts: ${missing.join(", ")}`).toEqual([]);
    expect(unknown, `calls for routes that are not in the table: ${unknown.join(", ")}`).toEqual([]);
  });

  it("calls every operation through the client against the sandbox", { timeout: 150_000 }, async () => {
    const ctx: Ctx = {
      agent: clientAs(sandbox.info.agentApiKey),
      admin: clientAs(sandbox.info.adminApiKey),
      anonymous: clientAs(undefined),
      ids: {},
    };
    const outcomes: Record<string, string> = {};

    for (const [routeId, call] of Object.entries(CALLS)) {
      outcomes[routeId] = await call(ctx).then(
        () => "ok",
        (e: unknown) => (e instanceof ConversaError ? `${e.status} ${e.code}` : `untyped ${String(e)}`),
      );
    }

    const expected = Object.fromEntries(Object.keys(CALLS).map((k) => [k, REFUSED[k] ?? "ok"]));
    expect(outcomes).toEqual(expected);
  });
});

describe("an empty reply", () => {
  it("is typed undefined, and is undefined", async () => {
    const admin = clientAs(sandbox.info.adminApiKey);
    const hook = await admin.call("webhooks.create", { body: { url: "https://empty-reply.example.com/h", subscriptions: ["message_created"] } });

    const gone = await admin.call("webhooks.delete", { path: { webhook_id: hook.payload.webhook.id } });

    expectTypeOf(gone).toEqualTypeOf<undefined>();
    expect(gone).toBeUndefined();
  });
});

describe("paging", () => {
  it("paginate walks every page by cursor (meta.next_cursor) and yields each item once", async () => {
    // Arrange
    const agent = clientAs(sandbox.info.agentApiKey);
    const tag = `page${suffix}`;
    for (const n of [1, 2, 3, 4, 5]) await agent.call("contacts.create", { body: { name: `Pat ${tag} ${n}`, email: `pat${n}-${tag}@client.test` } });
    const seen: Request[] = [];
    const watching = clientAs(sandbox.info.agentApiKey, (input, init) => {
      seen.push(new Request(input, init));
      return fetch(input, init);
    });
    // Act
    const names: string[] = [];
    for await (const contact of watching.paginate("contacts.search", { query: { q: tag, per: 2 } })) names.push(contact.name ?? "");
    // Assert
    expect(names.sort()).toEqual([1, 2, 3, 4, 5].map((n) => `Pat ${tag} ${n}`));
    expect(seen).toHaveLength(3);
    expect(seen.map((r) => new URL(r.url).searchParams.has("cursor"))).toEqual([false, true, true]);
  });
});

describe("errors", () => {
  it("a 422 is a ConversaError with its status, code, fields and the request id", async () => {
    const admin = clientAs(sandbox.info.adminApiKey);

    const invalid = () => admin.call("webhooks.create", { body: { url: "not a url", subscriptions: ["contact_created"] } });

    await expect(invalid()).rejects.toBeInstanceOf(ConversaError);
    await expect(invalid()).rejects.toMatchObject({
      status: 422,
      code: "validation_failed",
      fields: [expect.objectContaining({ field: "url" })],
      requestId: expect.stringMatching(/\S/),
    });
  });

  it("a role too low is a 401 forbidden_action", async () => {
    const agent = clientAs(sandbox.info.agentApiKey);

    const list = agent.call("webhooks.list");

    await expect(list).rejects.toMatchObject({ status: 401, code: "forbidden_action" });
  });

  it("a missing resource is a 404 not_found, a wrong key a 401 unauthorized", async () => {
    const agent = clientAs(sandbox.info.agentApiKey);

    const missing = () => agent.call("contacts.show", { path: { contact_id: 999_999 } });
    const wrongKey = () => clientAs("not-a-key").call("accounts.show");

    await expect(missing()).rejects.toMatchObject({ name: "ConversaError", status: 404, code: "not_found" });
    await expect(wrongKey()).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  });
});

describe("verifyWebhook", () => {
  let secret: string;
  let delivery: { headers: Record<string, string>; body: string };

  beforeAll(async () => {
    const admin = clientAs(sandbox.info.adminApiKey);
    const hook = await admin.call("webhooks.create", { body: { url: `${receiver.url}?verify`, subscriptions: ["conversation_created"] } });
    secret = hook.payload.webhook.secret;
    const agent = clientAs(sandbox.info.agentApiKey);
    const inbox = await agent.call("inboxes.create", { body: { name: `Verify ${suffix}`, channel: { type: "api" } } });
    const contact = await agent.call("contacts.create", { body: { name: "Vera Verify" } });
    await agent.call("conversations.create", { body: { inbox_id: inbox.id, contact_id: contact.payload.contact.id } });
    const [got] = await receiver.waitFor(1, 10_000, (r) => r.json.event === "conversation_created");
    const pick = (name: string) => String(got!.headers[name] ?? "");
    delivery = { headers: { "webhook-id": pick("webhook-id"), "webhook-timestamp": pick("webhook-timestamp"), "webhook-signature": pick("webhook-signature") }, body: got!.body };
  });

  it("accepts a real delivery and returns its typed event", () => {
    const event = verifyWebhook(secret, delivery.headers, delivery.body);

    expect(event.event).toBe("conversation_created");
    expect(event.id).toEqual(expect.any(String));
  });

  it("accepts several space-separated signatures when one of them is right (secret rotation)", () => {
    const headers = { ...delivery.headers, "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")} ${delivery.headers["webhook-signature"]}` };

    const event = verifyWebhook(secret, headers, Buffer.from(delivery.body));

    expect(event.event).toBe("conversation_created");
  });

  it("rejects a tampered body, a timestamp over 5 minutes old and a wrong secret", () => {
    const tampered = delivery.body.replace("conversation_created", "conversation_updated");
    const old = Math.floor(Date.now() / 1000) - 6 * 60;
    const oldHeaders = signatureHeaders(secret, delivery.headers["webhook-id"]!, old, delivery.body);
    const otherSecret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

    expect(() => verifyWebhook(secret, delivery.headers, tampered)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, oldHeaders, delivery.body)).toThrow(/timestamp too old/i);
    expect(() => verifyWebhook(otherSecret, delivery.headers, delivery.body)).toThrow(WebhookVerificationError);
  });
});

describe("checkout.subscribe is idempotent across a retried network error", () => {
  it("a reply lost after the server handled it is retried with the same Idempotency-Key: one account", async () => {
    // Arrange: the first reply of subscribe is read, then dropped as a network error would.
    const sent: Headers[] = [];
    const replies: { status: number; replayed: string | null; accountId: number }[] = [];
    const lossy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      sent.push(new Headers(init?.headers));
      const body = (await res.clone().json()) as { account?: { id: number } };
      replies.push({ status: res.status, replayed: res.headers.get("idempotent-replayed"), accountId: body.account?.id ?? 0 });
      if (replies.length === 1) throw new TypeError("fetch failed: socket hang up");
      return res;
    };
    const waits: number[] = [];
    const client = createClient({ baseUrl: baseUrl(), fetch: lossy, retry: { sleep: async (ms) => void waits.push(ms), random: () => 0 } });
    const email = `idem-${suffix}@client.test`;
    // Act
    const sub = await client.call("checkout.subscribe", {
      body: {
        plan: "profissional",
        billing_cycle: "monthly",
        account_name: `Idem ${suffix}`,
        user: { name: "Ida Idem", email, password: "a-long-password-2" },
        customer: { name: "Ida Idem", email, phone: "+55 11 91234-0000", cnpj: "11.222.333/0001-81" },
      },
    });
    // Assert
    expect(sent).toHaveLength(2);
    expect(sent[0]!.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]!.get("idempotency-key")).toBe(sent[0]!.get("idempotency-key"));
    expect(replies.map((r) => [r.status, r.replayed])).toEqual([
      [201, null],
      [201, "true"],
    ]);
    expect(sub.account.id).toBe(replies[0]!.accountId);
    expect(waits).toEqual([1000]);
    const login = await clientAs(undefined).call("auth.sign_in", { body: { email, password: "a-long-password-2" } });
    expect(login.data.account_id).toBe(sub.account.id);
  });

  it("a POST without an Idempotency-Key is not retried after a network error", async () => {
    let calls = 0;
    const failing: typeof fetch = async () => {
      calls++;
      throw new TypeError("fetch failed");
    };
    const client = createClient({ baseUrl: baseUrl(), apiKey: sandbox.info.agentApiKey, accountId: sandbox.info.accountId, fetch: failing, retry: { sleep: async () => {} } });

    const create = client.call("contacts.create", { body: { name: "Never Sent" } });

    await expect(create).rejects.toMatchObject({ name: "ConversaError", status: 0, code: "network_error" });
    expect(calls).toBe(1);
  });
});
