/**
 * API benchmark (`npm run bench:api`): starts the sandbox in process (its own DynamoDB Local, in
 * memory), seeds 10 000 contacts with BatchWriteItem (the repository's own item builders, search
 * postings included), then drives the HTTP API, at 1 connection with requests timed one by one,
 * each followed by its floor's calls (paired), and at 8 connections with autocannon:
 *   - contact search over the 10 000 contacts: a selective query (in a new container, and again
 *     after 1,000 other searches, which taught it posting-list sizes) and common ones,
 *   - message create,
 *   - conversations/meta,
 * and measures the median round trip of a bare DynamoDB GetItem to the same DynamoDB Local.
 * Ratios (route p50 / its floor's p50, route p50 / GetItem p50) are the figures to compare; absolute
 * times depend on the machine. Each route's floor (the bare calls it cannot avoid) is timed in the same run.
 * Prints a table and writes docs/bench/api.json. Never asserts.
 */
import autocannon from "autocannon";
import { Agent, request } from "node:http";
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { loopbackApiBase, withSandbox } from "./lib/sandbox.ts";
import { localClient } from "../../infra/local/dynamo.ts";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { db } from "../../shared/db/client.ts";
import { contactSeedItems } from "../../shared/db/contacts-repo.ts";
import { keys } from "../../shared/db/keys.ts";
import type { Contact } from "../../shared/domain/contacts.ts";
import { contactPostings } from "../../shared/domain/search-index.ts";
import { cores, cpuModel, writeResult } from "./lib/output.ts";
import { p50p99, round } from "./lib/stats.ts";
import { formatTable } from "./lib/table.ts";
import { sampleMs, timeMs } from "./lib/timing.ts";

const CONTACTS = Number(process.env["BENCH_CONTACTS"] ?? 10_000);
const DURATION_S = Number(process.env["BENCH_DURATION"] ?? 8);
const GETITEM_SAMPLES = 1000;

const FIRST = ["ana", "bruno", "carla", "diego", "elena", "felipe", "gabriela", "hugo", "isabel", "joao", "karen", "lucas", "marta", "nuno", "olivia", "paulo", "quiteria", "rafael", "sofia", "tiago"];
const LAST = ["silva", "santos", "oliveira", "souza", "rodrigues", "ferreira", "alves", "pereira", "lima", "gomes", "costa", "ribeiro", "martins", "carvalho", "almeida", "lopes", "soares", "fernandes", "vieira", "barbosa", "rocha", "dias", "nascimento", "andrade", "moreira"];

function contactFor(accountId: number, i: number, ts: number): Contact {
  const first = FIRST[i % FIRST.length]!;
  const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
  return {
    id: i + 1,
    account_id: accountId,
    name: `${cap(first)} ${cap(last)}`,
    email: `${first}${i}@ex.io`,
    phone_number: i % 20 === 0 ? `+55119${String(10000000 + i)}` : null,
    identifier: null,
    thumbnail: "",
    custom_attributes: {},
    additional_attributes: {},
    blocked: false,
    created_at: ts,
    updated_at: ts,
    last_activity_at: null,
  };
}

async function seedContacts(doc: DynamoDBDocumentClient, table: string, accountId: number): Promise<{ items: number; ms: number }> {
  const t0 = performance.now();
  const ts = Math.floor(Date.now() / 1000);
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < CONTACTS; i++) {
    const c = contactFor(accountId, i, ts);
    items.push(...contactSeedItems(c, contactPostings(c)));
  }
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length) {
        const out = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  await doc.send(new PutCommand({ TableName: table, Item: { ...keys.accountCounter(accountId, "contact"), value: CONTACTS } }));
  await doc.send(new PutCommand({ TableName: table, Item: { ...keys.accountCounter(accountId, "contacts_count"), value: CONTACTS } }));
  return { items: items.length, ms: performance.now() - t0 };
}

async function getItemMedian(doc: DynamoDBDocumentClient, table: string, accountId: number): Promise<{ p50: number; p99: number }> {
  return p50p99(await sampleMs(GETITEM_SAMPLES, (i) => doc.send(new GetCommand({ TableName: table, Key: keys.contact(accountId, 1 + (i % CONTACTS)) })), 50));
}

/**
 * A bare TransactWriteItems shaped and sized like message create's (message put, conversation
 * update with its last message, the account's and the inbox's report day, contact touch, outbox
 * put of the event): the emulator's own cost of the write.
 */
function transact6(doc: DynamoDBDocumentClient, table: string, accountId: number, i: number) {
  return doc.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table, Item: { pk: `BENCH#${accountId}`, sk: `MSG#${i}`, content: "x".repeat(200) }, ConditionExpression: "attribute_not_exists(pk)" } },
        { Update: { TableName: table, Key: { pk: `BENCH#${accountId}`, sk: "CONV" }, UpdateExpression: "SET t = :t, lm = :lm ADD n :one", ExpressionAttributeValues: { ":t": i, ":lm": "m".repeat(400), ":one": 1 } } },
        { Update: { TableName: table, Key: { pk: `BENCH#${accountId}`, sk: "DAY#a" }, UpdateExpression: "ADD n :one", ExpressionAttributeValues: { ":one": 1 } } },
        { Update: { TableName: table, Key: { pk: `BENCH#${accountId}`, sk: "DAY#i" }, UpdateExpression: "ADD n :one", ExpressionAttributeValues: { ":one": 1 } } },
        { Update: { TableName: table, Key: keys.contact(accountId, 1), UpdateExpression: "SET bench_t = :t", ExpressionAttributeValues: { ":t": i } } },
        { Put: { TableName: table, Item: { pk: `BENCH_OUTBOX#${i}`, sk: "OUTBOX", payload: "y".repeat(800) } } },
      ],
    }),
  );
}

async function transactMedian(doc: DynamoDBDocumentClient, table: string, accountId: number): Promise<{ p50: number; p99: number }> {
  return p50p99(await sampleMs(225, (i) => transact6(doc, table, accountId, i), 25));
}

/** p50/p99 of `fn` over `n` sequential runs after 20 warm-up runs. */
const sample = async (n: number, fn: (i: number) => Promise<unknown>) => p50p99(await sampleMs(n, fn, 20));

/**
 * Per-route floors: the bare DynamoDB calls each measured route cannot avoid, whatever the code
 * around them, timed in the same run. An API-key request reads the key item and the membership
 * (one BatchGetItem of 2 keys); then
 *   - message create (incoming) reads the conversation (it must exist; its inbox, contact and
 *     status decide the rest), then the inbox and the contact, which its event names, and writes
 *     in one TransactWriteItems what the contract keeps in step with the message: the message, the
 *     conversation (last activity, count), the account's and the inbox's report day, the contact's
 *     last activity and the outbox event (the event is written with the change): 6 items, shaped
 *     and sized like the real ones;
 *   - a search reads the posting list that holds its matches, whole (an exact `meta.count` counts
 *     every match: ~400 postings for the common queries, "rre" for `ferreira` with the texts that
 *     decide them, "lim" for `lim`), then the contacts of the page (one BatchGetItem: 1 for the
 *     selective query, 25 for the common ones, every match when sorted by name);
 *   - conversations/meta reads its counter items (one BatchGetItem).
 * References beside them: the least any design of message create sends (the conversation read
 * and a 2-item transaction, message and outbox event), a common search that counted nothing
 * (one Query of a page of 26), and one posting list's first page against four sent in parallel
 * (what a search in a new container sends; how far the emulator serializes them).
 * No HTTP, no handler, no validation: if a floor is over a goal, so is the route.
 */
async function floors(doc: DynamoDBDocumentClient, table: string, accountId: number, conv: { id: number; inboxId: number }) {
  const get = (i: number) => doc.send(new GetCommand({ TableName: table, Key: keys.contact(accountId, 1 + (i % CONTACTS)) }));
  const batchGetKeys = (Keys: { pk: string; sk: string }[]) => doc.send(new BatchGetCommand({ RequestItems: { [table]: { Keys, ConsistentRead: true } } }));
  const batchGet = (i: number, n: number) =>
    doc.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: Array.from({ length: n }, (_, j) => keys.contact(accountId, 1 + ((i + j) % CONTACTS))) } } }));
  const auth = (i: number) =>
    doc.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: [keys.contact(accountId, 1 + (i % CONTACTS)), keys.contact(accountId, 2 + (i % CONTACTS))], ConsistentRead: true } } }));
  const transact2 = (i: number) =>
    doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { pk: `FLOOR#${accountId}`, sk: `MSG#${i}#${Date.now()}`, content: "x".repeat(200) }, ConditionExpression: "attribute_not_exists(pk)" } },
          { Put: { TableName: table, Item: { pk: `FLOOR_OUTBOX#${i}#${Date.now()}`, sk: "OUTBOX", payload: "y".repeat(600) } } },
        ],
      }),
    );
  const query = (limit: number) =>
    doc.send(
      new QueryCommand({
        TableName: table,
        // BETWEEN, as shared/db/query.ts does: DynamoDB Local reads the partition for begins_with.
        KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
        ExpressionAttributeValues: { ":pk": keys.contact(accountId, 1).pk, ":lo": "CONTACT#", ":hi": "CONTACT#\uffff" },
        Limit: limit,
      }),
    );
  /** One whole posting list (every page), with its texts or keys only. */
  const postingList = async (tri: string, texts: boolean) => {
    let start: Record<string, unknown> | undefined;
    let n = 0;
    do {
      const out = await doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
          ExpressionAttributeValues: { ":pk": keys.contactTrigramPartition(accountId, tri[0]!).pk, ":lo": `${tri}#`, ":hi": `${tri}#\u{10FFFF}` },
          ProjectionExpression: texts ? "sk, tx" : "sk",
          ExclusiveStartKey: start,
        }),
      );
      n += out.Items?.length ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
    return n;
  };
  /** A posting list's first page, as a search reads it when no earlier search learned the list's size. */
  const firstPage = (tri: string) =>
    doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
        ExpressionAttributeValues: { ":pk": keys.contactTrigramPartition(accountId, tri[0]!).pk, ":lo": `${tri}#`, ":hi": `${tri}#\u{10FFFF}` },
        ProjectionExpression: "sk, tx",
        Limit: 32,
      }),
    );
  if ((await postingList("rre", true)) < CONTACTS / LAST.length) throw new Error("the posting list of rre should hold every ferreira");
  const calls = {
    getItem: get,
    transact2,
    messageCreateAnyDesign: async (i: number) => {
      await auth(i);
      await get(i + 2);
      await transact2(i);
    },
    messageCreate: async (i: number) => {
      await auth(i);
      await batchGetKeys([keys.conversation(accountId, conv.id), keys.account(accountId)]);
      await batchGetKeys([keys.inbox(accountId, conv.inboxId), keys.contact(accountId, 1)]);
      await transact6(doc, table, accountId, 10_000 + i);
    },
    searchSelective: async (i: number) => {
      await auth(i);
      await query(1);
      await batchGet(i * 37, 1);
    },
    searchCommon: async (i: number) => {
      await auth(i);
      await postingList("rre", true);
      await batchGet(i * 37, 25);
    },
    searchByName: async (i: number) => {
      await auth(i);
      const matches = await postingList("rre", true);
      // Sorted by name, every match is read: BatchGetItem takes 100 keys, the chunks go in parallel.
      await Promise.all(Array.from({ length: Math.ceil(matches / 100) }, (_, c) => batchGet(i * 37 + c * 100, Math.min(100, matches - c * 100))));
    },
    searchShort: async (i: number) => {
      await auth(i);
      await postingList("lim", false);
      await batchGet(i * 37, 25);
    },
    searchCommonUncounted: async (i: number) => {
      await auth(i);
      await query(26);
      await batchGet(i * 37, 25);
    },
    meta: async (i: number) => {
      await auth(i);
      await batchGet(i, 2);
    },
    // How the emulator serves the parallel first pages of a search in a new container.
    firstPage: () => firstPage("fer"),
    firstPages4: () => Promise.all(["fer", "err", "rre", "eir"].map(firstPage)),
  };
  const stats = {} as Record<keyof typeof calls, { p50: number; p99: number }>;
  for (const [name, fn] of Object.entries(calls) as [keyof typeof calls, (i: number) => Promise<unknown>][]) stats[name] = await sample(200, fn);
  return { calls, stats };
}

type FloorName = "messageCreate" | "searchSelective" | "searchCommon" | "searchByName" | "searchShort" | "meta";

interface Row {
  readonly name: string;
  /** Key of the route's floor in `floors()`. */
  readonly floor: FloorName;
  readonly connections: number;
  readonly reqPerSec: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly ratioP50: number;
  /** p50 / the route's floor p50 (goal <= 1.5), both from the same paired samples; null at 8 connections. */
  readonly ratioFloor: number | null;
  /** The floor's p50 timed alternately with the route (1 connection only). */
  readonly floorP50?: number;
}

type Measured = Omit<Row, "ratioP50">;

const PAIRED_SAMPLES = Number(process.env["BENCH_PAIRED_SAMPLES"] ?? 200);
const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request over a kept-alive connection; resolves with the status once the body is read. */
function httpCall(url: string, init: { method?: string; headers: Record<string, string>; body?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? "GET", headers: init.headers, agent: keepAlive }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/**
 * At 1 connection: the route and its floor timed alternately, one request then the floor's calls,
 * `PAIRED_SAMPLES` times after 20 untimed pairs, so that the machine's drift weighs on both alike
 * and the ratio compares like with like (autocannon's latencies are whole milliseconds, too coarse
 * against a 5-ms floor).
 */
async function paired(name: string, floor: FloorName, route: (i: number) => Promise<number>, floorCall: (i: number) => Promise<unknown>): Promise<Measured> {
  const routeMs: number[] = [];
  const floorMs: number[] = [];
  let non2xx = 0;
  for (let i = 0; i < 20 + PAIRED_SAMPLES; i++) {
    let status = 0;
    const r = await timeMs(async () => (status = await route(i)));
    // A search answers from its first short list while its other first pages are still being
    // served: the floor is timed once DynamoDB Local has served them, not beside them.
    await sandboxIdle();
    // Indexes past the floors' own samples: message create's floor writes items keyed by it.
    const f = await timeMs(() => floorCall(1_000_000 + i));
    if (status < 200 || status > 299) non2xx++;
    if (i < 20) continue;
    routeMs.push(r);
    floorMs.push(f);
  }
  const route50 = p50p99(routeMs);
  const floor50 = p50p99(floorMs);
  return {
    name,
    floor,
    connections: 1,
    reqPerSec: Math.round(1000 / (routeMs.reduce((a, b) => a + b, 0) / routeMs.length)),
    p50: round(route50.p50, 2),
    p99: round(route50.p99, 2),
    non2xx,
    ratioFloor: round(route50.p50 / floor50.p50, 2),
    floorP50: round(floor50.p50, 2),
  };
}

/**
 * The sandbox's DynamoDB calls in flight (its handlers run in this process, on the shared client):
 * counted through the client's middleware, so that a timing can wait for the calls a route leaves
 * running after its reply.
 */
const inFlight = { now: 0, seen: 0, idle: [] as (() => void)[] };
function countInFlight(): void {
  db().middlewareStack.add(
    (next) => async (args) => {
      inFlight.now++;
      inFlight.seen++;
      try {
        return await next(args);
      } finally {
        if (--inFlight.now === 0) for (const resolve of inFlight.idle.splice(0)) resolve();
      }
    },
    { step: "initialize", name: "bench-in-flight" },
  );
}
/** Resolves when the sandbox has no DynamoDB call in flight (without spinning on the cores DynamoDB Local needs). */
const sandboxIdle = (): Promise<void> => (inFlight.now === 0 ? Promise.resolve() : new Promise((resolve) => inFlight.idle.push(resolve)));

async function load(name: string, floor: FloorName, opts: autocannon.Options): Promise<Measured> {
  const r = await autocannon({ duration: DURATION_S, ...opts });
  return {
    name,
    floor,
    connections: opts.connections ?? 1,
    reqPerSec: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx + r.errors,
    ratioFloor: null,
  };
}

async function run(sandbox: Sandbox): Promise<void> {
  const { info, dynamoEndpoint } = sandbox;
  const table = info.tableName;
  const doc = DynamoDBDocumentClient.from(localClient(dynamoEndpoint));
  console.log(`seeding ${CONTACTS} contacts...`);
  const seeded = await seedContacts(doc, table, info.accountId);
  console.log(`  ${seeded.items} items in ${(seeded.ms / 1000).toFixed(1)} s`);

  const base = `${loopbackApiBase(sandbox)}/api/v1/accounts/${info.accountId}`;
  const headers = { api_access_token: info.agentApiKey, "content-type": "application/json" };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    return (await res.json()) as { id: number };
  };
  const inbox = await post("/inboxes", { name: "Bench", channel: { type: "api" } });
  const conv = await post("/conversations", { inbox_id: inbox.id, contact_id: 1 });

  // Warm every handler module and the connections once.
  await fetch(`${base}/contacts/search?q=silva`, { headers });
  await fetch(`${base}/conversations/meta`, { headers });
  await post(`/conversations/${conv.id}/messages`, { content: "warm-up" });

  // The GetItem baseline is measured before and after the routes and the lower median kept: a
  // baseline taken in a slow spell (DynamoDB Local settling after the seed, a busy machine) would
  // make every ratio look better than it is.
  const getItemBefore = await getItemMedian(doc, table, info.accountId);
  console.log(`bare GetItem (before): p50 ${getItemBefore.p50.toFixed(2)} ms, p99 ${getItemBefore.p99.toFixed(2)} ms`);
  const tx = await transactMedian(doc, table, info.accountId);
  console.log(`bare TransactWriteItems (6 items): p50 ${tx.p50.toFixed(2)} ms, p99 ${tx.p99.toFixed(2)} ms`);
  const floor = await floors(doc, table, info.accountId, { id: conv.id, inboxId: inbox.id });

  // An e-mail fragment of one contact: "<first><i>@".
  const selective = (i: number) => {
    const k = (i * 37) % CONTACTS;
    return `${FIRST[k % FIRST.length]}${k}@`;
  };
  let n = 0;
  const searchSelective: autocannon.Options = {
    url: base,
    headers,
    requests: [{ method: "GET", setupRequest: (req) => ({ ...req, path: `${new URL(base).pathname}/contacts/search?q=${encodeURIComponent(selective(n++))}` }) }],
  };
  // The default order (newest first) pages from the postings; sort=name must read every match;
  // a 3-character query has one posting list, whose postings are the matches.
  const searchCommon: autocannon.Options = { url: `${base}/contacts/search?q=ferreira`, headers };
  const messageCreate: autocannon.Options = {
    url: `${base}/conversations/${conv.id}/messages`,
    method: "POST",
    headers,
    body: JSON.stringify({ content: "benchmark message", message_type: "incoming" }),
  };
  const meta: autocannon.Options = { url: `${base}/conversations/meta?status=open`, headers };

  const path = new URL(base).pathname;
  const origin = new URL(base).origin;
  const get = (p: string) => () => httpCall(`${origin}${path}${p}`, { headers });
  const f = floor.calls;
  const common = `common q (~${Math.round(CONTACTS / LAST.length)} matches)`;
  // Each row timed against its own floor's calls.
  const row = (name: string, floorName: FloorName, route: (i: number) => Promise<number>) => paired(name, floorName, route, f[floorName]);
  /**
   * The same, in a container that has served searches before: 1,000 other selective queries
   * (untimed), then 200 new ones, each also never searched before. What earlier searches learned
   * of the posting lists (their sizes, per container) decides how much a search reads; the first
   * row is a container's first 220 searches. Indexes 300.. give other contacts than the rows' 0..219.
   */
  const warmSelective = async () => {
    for (let i = 300; i < 1300; i++) await httpCall(`${origin}${path}/contacts/search?q=${encodeURIComponent(selective(i))}`, { headers });
    return row(`contact search, selective q, after 1,000 other searches`, "searchSelective", (i) => httpCall(`${origin}${path}/contacts/search?q=${encodeURIComponent(selective(1300 + i))}`, { headers }));
  };
  countInFlight();
  const measured: Measured[] = [
    await row("contact search, selective q (1 match)", "searchSelective", (i) => httpCall(`${origin}${path}/contacts/search?q=${encodeURIComponent(selective(i))}`, { headers })),
    await warmSelective(),
    await row(`contact search, ${common}`, "searchCommon", get("/contacts/search?q=ferreira")),
    await row("contact search, common q, sort=name", "searchByName", get("/contacts/search?q=ferreira&sort=name")),
    await row(`contact search, common 3-character q (~${Math.round(CONTACTS / LAST.length)} matches)`, "searchShort", get("/contacts/search?q=lim")),
    await row("message create", "messageCreate", () => httpCall(`${origin}${path}/conversations/${conv.id}/messages`, { method: "POST", headers, body: messageCreate.body as string })),
    await row("conversations/meta", "meta", get("/conversations/meta?status=open")),
  ];
  // The requests above went through the client counted: else the pairs did not wait for anything.
  if (inFlight.seen === 0) throw new Error("the sandbox's DynamoDB calls were not counted: the paired timings did not wait for them");
  const connections = 8;
  measured.push(await load("contact search, selective q (1 match)", "searchSelective", { ...searchSelective, connections }));
  measured.push(await load(`contact search, ${common}`, "searchCommon", { ...searchCommon, connections }));
  measured.push(await load("message create", "messageCreate", { ...messageCreate, connections }));
  measured.push(await load("conversations/meta", "meta", { ...meta, connections }));
  const getItemAfter = await getItemMedian(doc, table, info.accountId);
  console.log(`bare GetItem (after): p50 ${getItemAfter.p50.toFixed(2)} ms, p99 ${getItemAfter.p99.toFixed(2)} ms`);
  const getItem = getItemAfter.p50 < getItemBefore.p50 ? getItemAfter : getItemBefore;
  const b = getItem.p50;
  const x = (ms: number) => `${round(ms / b, 1)}x`;
  const rows: Row[] = measured.map((r) => ({ ...r, ratioP50: round(r.p50 / b, 1) }));

  const bare = (name: string, f: { p50: number; p99: number }, ratioP50: string) => [name, 1, "-", f.p50.toFixed(2), f.p99.toFixed(1), ratioP50, "", ""];
  const lines = formatTable(
    [
      { header: "route", minWidth: 52 },
      { header: "conns", align: "right", minWidth: 5 },
      { header: "req/s", align: "right", minWidth: 5 },
      { header: "p50 ms", align: "right", minWidth: 8 },
      { header: "p99 ms", align: "right", minWidth: 6 },
      { header: "p50/GetItem", align: "right", minWidth: 11 },
      { header: "p50/floor", align: "right", minWidth: 9 },
      { header: "non-2xx", align: "right", minWidth: 7 },
    ],
    [
      ...rows.map((r) => [r.name, r.connections, r.reqPerSec, r.p50.toFixed(1), r.p99.toFixed(1), `${r.ratioP50}x`, r.ratioFloor === null ? "-" : `${r.ratioFloor}x`, r.non2xx]),
      bare("bare DynamoDB GetItem (lower of before/after)", getItem, "1x"),
      bare("bare TransactWriteItems, 6 items", tx, `${round(tx.p50 / b, 1)}x`),
      bare("bare TransactWriteItems, 2 items", floor.stats.transact2, x(floor.stats.transact2.p50)),
      bare("floor: message create (auth, conversation, inbox + contact, tx 6)", floor.stats.messageCreate, x(floor.stats.messageCreate.p50)),
      bare("floor: selective search (auth + Query + BatchGet 1)", floor.stats.searchSelective, x(floor.stats.searchSelective.p50)),
      bare("floor: common search (auth + the matches' postings + BatchGet 25)", floor.stats.searchCommon, x(floor.stats.searchCommon.p50)),
      bare("floor: common search by name (auth + the matches' postings + BatchGet of every match)", floor.stats.searchByName, x(floor.stats.searchByName.p50)),
      bare("floor: 3-character search (auth + its posting list + BatchGet 25)", floor.stats.searchShort, x(floor.stats.searchShort.p50)),
      bare("reference: message create, any design (auth + Get + tx 2)", floor.stats.messageCreateAnyDesign, x(floor.stats.messageCreateAnyDesign.p50)),
      bare("reference: a search counting nothing (auth + Query 26 + BatchGet 25)", floor.stats.searchCommonUncounted, x(floor.stats.searchCommonUncounted.p50)),
      bare("floor: conversations/meta (auth + BatchGet)", floor.stats.meta, x(floor.stats.meta.p50)),
      bare("reference: a posting list's first page (Query 32)", floor.stats.firstPage, x(floor.stats.firstPage.p50)),
      bare("reference: 4 lists' first pages in parallel (4 x Query 32)", floor.stats.firstPages4, x(floor.stats.firstPages4.p50)),
    ],
    { trimEnd: true },
  );
  console.log(`\n${lines}\n`);
  console.log("Goals (at 1 connection): each route's p50 <= 1.5x its floor; the common search <= 15x the GetItem p50.");
  const parallel = round(floor.stats.firstPages4.p50 / floor.stats.firstPage.p50, 2);
  console.log(`DynamoDB Local serves 4 first pages sent in parallel in ${parallel}x the time of one (DynamoDB serves parallel requests side by side).`);

  await writeResult("api", {
    generatedAt: new Date().toISOString(),
    node: process.version,
    machine: { cores: cores(), cpu: cpuModel().split(" ").slice(0, 2).join(" ") },
    contacts: CONTACTS,
    seed: seeded,
    durationSeconds: DURATION_S,
    getItem: { p50Ms: b, p99Ms: getItem.p99, samples: GETITEM_SAMPLES, beforeP50Ms: getItemBefore.p50, afterP50Ms: getItemAfter.p50, kept: "the lower median" },
    transactWrite6: { p50Ms: tx.p50, p99Ms: tx.p99, samples: 225, ratioToGetItem: round(tx.p50 / b, 1) },
    parallelFirstPages: { ratio4To1: round(floor.stats.firstPages4.p50 / floor.stats.firstPage.p50, 2) },
    floors: Object.fromEntries(Object.entries(floor.stats).map(([k, f]) => [k, { p50Ms: f.p50, p99Ms: f.p99, samples: 200, ratioToGetItem: round(f.p50 / b, 1) }])),
    rows,
  });
  doc.destroy();
}

await withSandbox({ port: 0 }, run);
