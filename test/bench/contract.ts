/**
 * What the reply check of api() costs (development and test only; production skips it): the time
 * to validate a reply against its route's schema next to the time to serialise it (JSON.stringify,
 * which every reply pays). Ratios within one run; nothing asserted.
 *
 * npm run bench:contract  → table on stdout, docs/bench/contract.json
 */
import { replyMismatch, type Reply } from "../../shared/http/api.ts";
import type { ReplySpec } from "../../shared/http/schemas/common.ts";
import { contactListReply } from "../../shared/http/schemas/contacts.ts";
import { conversationListReply, messageReply } from "../../shared/http/schemas/conversations.ts";
import { webhookReply } from "../../shared/http/schemas/webhooks.ts";
import { cores, cpuModel, writeResult } from "./lib/output.ts";
import { median } from "./lib/stats.ts";
import { formatTable } from "./lib/table.ts";
import { perCallUsRounds } from "./lib/timing.ts";

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

/** Median microseconds per call over 7 rounds of `n` calls. */
const time = (fn: () => unknown, n: number): number => median(perCallUsRounds(fn, n, 7));

const rows = cases.map((c) => {
  if (replyMismatch(c.spec, c.reply)) throw new Error(`${c.name}: the sample breaks its schema`);
  const n = 2000;
  const validateUs = time(() => replyMismatch(c.spec, c.reply), n);
  const stringifyUs = time(() => JSON.stringify(c.reply.body), n);
  return { reply: c.name, bytes: JSON.stringify(c.reply.body).length, validateUs: +validateUs.toFixed(1), stringifyUs: +stringifyUs.toFixed(1), ratio: +(validateUs / stringifyUs).toFixed(2) };
});

console.log(
  formatTable(
    [
      { header: "reply", minWidth: 24 },
      { header: "bytes", align: "right", minWidth: 6 },
      { header: "validate µs", align: "right", minWidth: 13 },
      { header: "stringify µs", align: "right", minWidth: 14 },
      { header: "validate/stringify", align: "right", minWidth: 20 },
    ],
    rows.map((r) => [r.reply, r.bytes, r.validateUs, r.stringifyUs, r.ratio]),
    { gap: " " },
  ),
);
await writeResult("contract", {
  generatedAt: new Date().toISOString(),
  node: process.version,
  machine: { cores: cores(), cpu: cpuModel(), platform: process.platform, arch: process.arch },
  rows,
});
