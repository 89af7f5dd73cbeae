/**
 * The call budget of every route (shared/budgets.ts): one representative, successful request per
 * route, as deployed (throttle counters on), its DynamoDB, SQS, S3 and EventBridge calls counted
 * through the shared clients. A route
 * over its budget fails, and so does a route of the table without a budget (add it to
 * shared/budgets.ts) or without a representative request here. The table is printed.
 */
import { checkoutAssets } from "../../web/assets.ts";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAws, type LocalAws } from "../../infra/local/fauxqs.ts";
import { budgets, type CallBudget } from "../../shared/budgets.ts";
import { resetConfig } from "../../shared/config.ts";
import { deliveriesRepo } from "../../shared/db/webhooks-repo.ts";
import type { Delivery } from "../../shared/domain/deliveries.ts";
import { routes, type RouteId } from "../../shared/routes.ts";
import { invoke, type Call, type Response } from "../support/api.ts";
import { customer, makeCatalog, subscribeBody } from "../support/checkout.ts";
import { countCalls, type CallCount } from "../support/aws-calls.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { makeUser, type UserFixture } from "../support/users.ts";

let aws: LocalAws;
let mailDir = "";
let a: AccountFixture;
let signer: UserFixture;
let resetter: UserFixture;
let cat: Awaited<ReturnType<typeof makeCatalog>>;
const subscribed = { accountId: 0, key: "" };
const ids = { inbox: 0, widgetToken: "", contact: 0, conversation: 0, message: 0, webhook: 0, doomedWebhook: 0, delivery: "", token: "", resetToken: "", checkoutToken: "", pageAsset: "" };

const BOUNDARY = "----conversa-budget-boundary";
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1000, 7)]);
const multipartPng = Buffer.concat([
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachment"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`),
  png,
  Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
]);

const ok = async (res: Promise<Response>): Promise<Response> => {
  const r = await res;
  if (r.status >= 300) throw new Error(`fixture request failed: ${r.status} ${r.text}`);
  return r;
};

beforeAll(async () => {
  aws = await startLocalAws({ buckets: ["budget-uploads"] });
  const queueUrl = aws.server.createQueue("budget-deliveries").queueUrl;
  mailDir = await mkdtemp(join(tmpdir(), "conversa-budget-mail-"));
  Object.assign(process.env, {
    S3_ENDPOINT: aws.endpoint,
    UPLOADS_BUCKET: "budget-uploads",
    SQS_ENDPOINT: aws.endpoint,
    DELIVERY_QUEUE_URL: queueUrl,
    MAIL_DIR: mailDir,
    PASSWORD_RESET_URL: "https://app.test/auth/password/edit",
    PASSWORD_RESET_MIN_REPLY_MS: "0",
  });
  resetConfig();

  a = await makeAccount("Budget");
  signer = await makeUser();
  resetter = await makeUser();
  cat = await makeCatalog();
  const P = { account_id: a.accountId };
  const key = a.adminKey;
  ids.inbox = (await ok(invoke("inboxes.create", { params: P, key, body: { name: "API", channel: { type: "api" } } }))).json.id;
  ids.widgetToken = (await ok(invoke("inboxes.create", { params: P, key, body: { name: "Site", channel: { type: "web_widget", website_url: "https://budget.test" } } }))).json.website_token;
  // A representative account: 30 contacts, the search below matches a few of them.
  for (let i = 0; i < 30; i++) {
    const name = i % 10 === 0 ? `Acme Buyer ${i}` : `Person ${i}`;
    const r = await ok(invoke("contacts.create", { params: P, key, body: { name, email: `p${i}@example.com`, identifier: `crm-${i}` } }));
    if (i === 0) ids.contact = r.json.payload.contact.id;
  }
  ids.conversation = (await ok(invoke("conversations.create", { params: P, key, body: { inbox_id: ids.inbox, contact_id: ids.contact } }))).json.id;
  for (let i = 0; i < 5; i++) {
    ids.message = (await ok(invoke("messages.create", { params: { ...P, conversation_id: ids.conversation }, key, body: { content: `Hello ${i}` } }))).json.id;
  }
  ids.webhook = (await ok(invoke("webhooks.create", { params: P, key, body: { url: "https://hooks.example.com/a", subscriptions: ["message_created"] } }))).json.payload.webhook.id;
  ids.doomedWebhook = (await ok(invoke("webhooks.create", { params: P, key, body: { url: "https://hooks.example.com/b", subscriptions: ["message_created"] } }))).json.payload.webhook.id;
  const nowSec = Math.floor(Date.now() / 1000);
  const delivery: Delivery = {
    id: `msg_${"a".repeat(32)}`, account_id: a.accountId, webhook_id: ids.webhook, event: "message_created", event_id: "budget-event",
    status: "succeeded", attempts: 1, response_status: 200, error: null, duration_ms: 12, next_attempt_at: null, created_at: nowSec, updated_at: nowSec,
    payload: "{}", seq: 0, resend: false, due_at_ms: nowSec * 1000, attempt_log: [],
  };
  await deliveriesRepo.recordAttempt(delivery, delivery, true);
  ids.delivery = delivery.id;
  ids.token = (await ok(invoke("access_tokens.create", { key, body: {} }))).json.id;
  ids.pageAsset = Object.keys((await checkoutAssets()).files)[0] ?? "";
  ids.token = String(ids.token);
  await ok(invoke("auth.password_request", { body: { email: resetter.email } }));
  const mail = await readFile(join(mailDir, (await readdir(mailDir)).find((f) => f.endsWith(".eml"))!), "utf8");
  ids.resetToken = /reset_password_token=([A-Za-z0-9_-]+)/.exec(mail)![1]!;
  const link = await ok(invoke("checkout.link", { body: { plan: cat.plan.slug, billing_cycle: "monthly", customer } }));
  ids.checkoutToken = new URL(link.json.url).searchParams.get("token")!;
  const sub = await ok(invoke("checkout.subscribe", { body: subscribeBody(cat.plan.slug, `budget-first-${process.pid}@empresa.com.br`) }));
  subscribed.accountId = sub.json.account.id;
  subscribed.key = sub.json.access_token;
  // Counted as deployed: the throttle counters run only in production.
  Object.assign(process.env, { APP_ENV: "production", THROTTLE_TIMEOUT_MS: "15000" });
  resetConfig();
});

afterAll(async () => {
  await aws?.stop();
  await rm(mailDir, { recursive: true, force: true });
});

/**
 * One representative, successful request per route. Partial on purpose: a route added to the
 * table compiles, and this test names it (no request, no budget) until both are added.
 */
const requests: Partial<Record<RouteId, () => Call>> = {
  "accounts.show": () => ({ params: { account_id: a.accountId }, key: a.agentKey }),
  "inboxes.list": () => ({ params: { account_id: a.accountId }, key: a.agentKey }),
  "inboxes.create": () => ({ params: { account_id: a.accountId }, key: a.agentKey, body: { name: "Another", channel: { type: "api" } } }),
  "inboxes.show": () => ({ params: { account_id: a.accountId, inbox_id: ids.inbox }, key: a.agentKey }),
  "inboxes.update": () => ({ params: { account_id: a.accountId, inbox_id: ids.inbox }, key: a.adminKey, body: { name: "API v2", greeting_enabled: true } }),
  "webhooks.list": () => ({ params: { account_id: a.accountId }, key: a.adminKey }),
  "webhooks.create": () => ({ params: { account_id: a.accountId }, key: a.adminKey, body: { url: "https://hooks.example.com/c", subscriptions: ["contact_created"] } }),
  "webhooks.show": () => ({ params: { account_id: a.accountId, webhook_id: ids.webhook }, key: a.adminKey }),
  "webhooks.update": () => ({ params: { account_id: a.accountId, webhook_id: ids.webhook }, key: a.adminKey, body: { webhook: { url: "https://hooks.example.com/a2", subscriptions: ["contact_updated"], name: "CRM 2" } } }),
  "webhooks.delete": () => ({ params: { account_id: a.accountId, webhook_id: ids.doomedWebhook }, key: a.adminKey }),
  "webhooks.reset_secret": () => ({ params: { account_id: a.accountId, webhook_id: ids.webhook }, key: a.adminKey }),
  "webhooks.deliveries": () => ({ params: { account_id: a.accountId, webhook_id: ids.webhook }, key: a.adminKey }),
  "webhooks.resend": () => ({ params: { account_id: a.accountId, webhook_id: ids.webhook, delivery_id: ids.delivery }, key: a.adminKey }),
  "webhooks.attempts": () => ({ params: { account_id: a.accountId, webhook_id: ids.webhook, delivery_id: ids.delivery }, key: a.adminKey }),
  "webhooks.test": () => ({ params: { account_id: a.accountId, webhook_id: ids.webhook }, key: a.adminKey, body: { event: "contact_updated" } }),
  "webhooks.recover": () => ({ params: { account_id: a.accountId, webhook_id: ids.webhook }, key: a.adminKey, body: { since: 1 } }),
  "contacts.list": () => ({ params: { account_id: a.accountId }, key: a.agentKey }),
  "contacts.create": () => ({ params: { account_id: a.accountId }, key: a.agentKey, body: { name: "New Person", email: "new@example.com" } }),
  "contacts.search": () => ({ params: { account_id: a.accountId }, key: a.agentKey, query: { q: "acme buyer" } }),
  "contacts.show": () => ({ params: { account_id: a.accountId, contact_id: ids.contact }, key: a.agentKey }),
  "contacts.update": () => ({ params: { account_id: a.accountId, contact_id: ids.contact }, key: a.agentKey, body: { name: "Acme Buyer Zero", email: "zero@example.com" } }),
  "contacts.replace": () => ({ params: { account_id: a.accountId, contact_id: ids.contact }, key: a.agentKey, body: { name: "Acme Buyer 0" } }),
  "conversations.list": () => ({ params: { account_id: a.accountId }, key: a.agentKey }),
  "conversations.create": () => ({ params: { account_id: a.accountId }, key: a.agentKey, body: { inbox_id: ids.inbox, contact_id: ids.contact } }),
  "conversations.meta": () => ({ params: { account_id: a.accountId }, key: a.agentKey }),
  "conversations.show": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation }, key: a.agentKey }),
  "conversations.update": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation }, key: a.agentKey, body: { priority: "high", custom_attributes: { plan: "pro" } } }),
  "conversations.toggle_status": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation }, key: a.agentKey, body: { status: "resolved" } }),
  "conversations.toggle_typing_status": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation }, key: a.agentKey, body: { typing_status: "on" } }),
  "conversations.assignments": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation }, key: a.agentKey, body: { assignee_id: a.adminUserId } }),
  "conversations.transcript": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation }, key: a.agentKey }),
  "messages.list": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation }, key: a.agentKey }),
  "messages.create": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation }, key: a.agentKey, body: { content: "A reply" } }),
  "messages.update": () => ({ params: { account_id: a.accountId, conversation_id: ids.conversation, message_id: ids.message }, key: a.agentKey, body: { content: "Hello (edited)" } }),
  "upload.create": () => ({ params: { account_id: a.accountId }, key: a.agentKey, body: multipartPng, headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` } }),
  "reports.show": () => ({ params: { account_id: a.accountId }, key: a.agentKey, query: { metric: "conversations_count", since: String(Math.floor(Date.now() / 1000) - 7 * 86_400), until: String(Math.floor(Date.now() / 1000)) } }),
  "widget.events": () => ({ query: { website_token: ids.widgetToken }, body: { name: "webwidget.triggered", event_info: { referer: "https://budget.test/pricing" }, contact_identifier: "crm-1" } }),
  "auth.sign_in": () => ({ body: { email: signer.email, password: signer.password } }),
  "auth.password_request": () => ({ body: { email: signer.email } }),
  "auth.password_reset": () => ({ body: { reset_password_token: ids.resetToken, password: "a-new-long-password-1", password_confirmation: "a-new-long-password-1" } }),
  "access_tokens.list": () => ({ key: a.adminKey }),
  "access_tokens.create": () => ({ key: a.adminKey, body: {} }),
  "access_tokens.revoke": () => ({ key: a.adminKey, params: { token_id: ids.token } }),
  "checkout.plans": () => ({}),
  "checkout.page": () => ({}),
  "checkout.asset": () => ({ params: { asset: ids.pageAsset } }),
  "checkout.link": () => ({ body: { plan: cat.plan.slug, billing_cycle: "monthly" } }),
  "checkout.prefill": () => ({ query: { token: ids.checkoutToken } }),
  "checkout.coupon": () => ({ body: { plan: cat.plan.slug, billing_cycle: "monthly", code: cat.codes.percent } }),
  "checkout.subscribe": () => ({ body: subscribeBody(cat.plan.slug, `budget-${process.pid}@empresa.com.br`, { coupon: cat.codes.percent }) }),
  "checkout.quote": () => ({ body: { name: "João", email: "joao@grande.com.br", phone: "+55 (21) 3456-7890", company: "Grande SA", cnpj: "11222333000181", inboxes: 40, agents: 120, message: "Need 40 inboxes" } }),
  "billing.coupon": () => ({ params: { account_id: subscribed.accountId }, key: subscribed.key, body: { code: cat.codes.percent } }),
};

const SERVICES = ["dynamodb", "sqs", "s3", "eventbridge"] as const;
const measured = new Map<string, CallCount>();

describe("call budget per route", () => {
  it("every route of the table has a budget and a representative request", () => {
    const withoutBudget = routes.filter((r) => budgets[r.id] === undefined).map((r) => r.id);
    const withoutRequest = routes.filter((r) => requests[r.id] === undefined).map((r) => r.id);

    expect(withoutBudget, "routes without a call budget in shared/budgets.ts").toEqual([]);
    expect(withoutRequest, "routes without a representative request in this test").toEqual([]);
  });

  it("no budget for a route that is not in the table", () => {
    const known = new Set<string>(routes.map((r) => r.id));

    expect(Object.keys(budgets).filter((id) => !known.has(id))).toEqual([]);
  });

  it.each(routes.map((r) => [r.id, r] as const))("%s stays within its budget", async (id, route) => {
    const request = requests[id];
    const budget: CallBudget | undefined = budgets[id];
    expect(request, `${id}: no representative request in test/integration/call-budget.test.ts`).toBeDefined();
    let res: Response | undefined;

    const count = await countCalls(async () => {
      res = await invoke(route, request!());
    });
    measured.set(id, count);

    expect(res!.status, `${id}: the representative request failed: ${res!.text}`).toBeLessThan(300);
    expect(budget, `${id}: no call budget in shared/budgets.ts (measured: ${SERVICES.map((s) => `${s} ${count[s]}`).join(", ")})`).toBeDefined();
    for (const s of SERVICES) expect(count[s], `${id}: ${s} calls (${count.log.join(", ")})`).toBeLessThanOrEqual(budget![s]);
  });

  it("prints the table", () => {
    const rows = routes.map((r) => {
      const c = measured.get(r.id);
      const bud = budgets[r.id];
      const cell = (s: (typeof SERVICES)[number]) => `${c ? c[s] : "?"}/${bud ? bud[s] : "-"}`;
      const calls = (c?.log ?? []).map((l) => l.replace(/^dynamodb:|Command$/g, "")).join(" ");
      return `${r.id.padEnd(36)} ${SERVICES.map((s) => cell(s).padStart(12)).join("")}  ${calls}`;
    });
    const head = `${"route (measured/budget)".padEnd(36)} ${SERVICES.map((s) => s.padStart(12)).join("")}  calls`;
    console.log([head, ...rows].join("\n"));

    expect(measured.size).toBe(routes.length);
  });
});
