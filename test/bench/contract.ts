/**
 * What the reply check of api() costs (development and test only; production skips it): the time
 * to validate a reply against its route's schema next to the time to serialise it (JSON.stringify,
 * which every reply pays). Ratios within one run; nothing asserted.
 *
 * npm run bench:contract  → table on stdout, docs/bench/contract.json
 */
import { writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { join } from "node:path";
import { replyMismatch, type Reply } from "../../shared/http/api.ts";
import type { ReplySpec } from "../../shared/http/schemas/common.ts";
import { contactListReply } from "../../shared/http/schemas/contacts.ts";
import { conversationListReply, messageReply } from "../../shared/http/schemas/conversations.ts";
import { webhookReply } from "../../shared/http/schemas/webhooks.ts";
import { ROOT } from "../../infra/build.ts";

const now = 1_795_000_000;
const meta = { count: 250, current_page: 1, per: 25, has_more: true, next_cursor: "eyJhZnRlciI6MjV9" };
const contact = (id: number) => ({
  id,
  account_id: 1,
  name: `Contact ${id}`,
  email: `c${id}@example.com`,
  phone_number: "+5511999990000",
  identifier: `crm-${id}`,
  thumbnail: "",
  custom_attributes: { plan: "pro", seats: 3 },
  additional_attributes: { city: "São Paulo" },
  created_at: now,
  updated_at: now,
  last_activity_at: now,
});
const message = (id: number) => ({
  id,
  account_id: 1,
  conversation_id: 7,
  inbox_id: 1,
  content: "Olá, preciso de ajuda com o meu pedido 12345.",
  message_type: "incoming",
  content_type: "text",
  content_attributes: {},
  private: false,
  source_id: null,
  status: "sent",
  sender: { id: 3, name: "Contact 3", type: "contact", email: "c3@example.com", thumbnail: "" },
  attachments: [],
  created_at: now,
  updated_at: now,
});
const conversation = (id: number) => ({
  id,
  account_id: 1,
  inbox_id: 1,
  contact_id: 3,
  status: "open",
  priority: null,
  assignee_id: 2,
  snoozed_until: null,
  custom_attributes: {},
  additional_attributes: {},
  created_at: now,
  updated_at: now,
  last_activity_at: now,
  timestamp: now,
  contact_last_seen_at: null,
  agent_last_seen_at: null,
  unread_count: 0,
  muted: false,
  can_reply: true,
  labels: [],
  meta: { sender: { ...contact(3), type: "contact" }, assignee: { id: 2, name: "Agent", email: "a@example.com", type: "user" } },
  messages: [message(id * 10)],
});
const webhook = {
  id: 1,
  name: "CRM",
  url: "https://crm.example.com/hooks",
  account_id: 1,
  subscriptions: ["message_created", "conversation_created"],
  webhook_type: "account_type",
  inbox: null,
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  created_at: now,
  updated_at: now,
};

const cases: { name: string; spec: ReplySpec; reply: Reply }[] = [
  { name: "webhook (1 object)", spec: webhookReply, reply: { body: { payload: { webhook } } } },
  { name: "message (1 object)", spec: messageReply, reply: { body: message(1) } },
  { name: "contacts list (25)", spec: contactListReply, reply: { body: { meta, payload: Array.from({ length: 25 }, (_, i) => contact(i + 1)) } } },
  {
    name: "conversations list (25)",
    spec: conversationListReply,
    reply: { body: { data: { meta: { mine_count: 1, assigned_count: 2, unassigned_count: 3, all_count: 5, ...meta }, payload: Array.from({ length: 25 }, (_, i) => conversation(i + 1)) } } },
  },
];

/** Median microseconds per call over `rounds` rounds of `n` calls. */
function time(fn: () => unknown, n: number, rounds = 7): number {
  for (let i = 0; i < n; i++) fn();
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    per.push(((performance.now() - t0) * 1000) / n);
  }
  return per.sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
}

const rows = cases.map((c) => {
  if (replyMismatch(c.spec, c.reply)) throw new Error(`${c.name}: the sample breaks its schema`);
  const n = 2000;
  const validateUs = time(() => replyMismatch(c.spec, c.reply), n);
  const stringifyUs = time(() => JSON.stringify(c.reply.body), n);
  return { reply: c.name, bytes: JSON.stringify(c.reply.body).length, validateUs: +validateUs.toFixed(1), stringifyUs: +stringifyUs.toFixed(1), ratio: +(validateUs / stringifyUs).toFixed(2) };
});

console.log("reply                     bytes   validate µs   stringify µs   validate/stringify");
for (const r of rows) {
  console.log(`${r.reply.padEnd(24)} ${String(r.bytes).padStart(6)} ${String(r.validateUs).padStart(13)} ${String(r.stringifyUs).padStart(14)} ${String(r.ratio).padStart(20)}`);
}
const out = {
  generatedAt: new Date().toISOString(),
  node: process.version,
  machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "", platform: process.platform, arch: process.arch },
  rows,
};
await writeFile(join(ROOT, "docs", "bench", "contract.json"), `${JSON.stringify(out, null, 2)}\n`);
console.log("docs/bench/contract.json written");
