/**
 * The contact search's reads: the posting lists of a query's trigrams (shared/domain/search-index.ts
 * says which and what decides), read in rounds, and what this container learned of their sizes.
 * The postings themselves are written with their contacts (contacts-repo.ts).
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { candidatesOf, knownShortest, listToFinish, sparsestOf, type ListStat, type SearchCandidate, type SearchPlan } from "../domain/search-index.ts";
import { db, mainTableName } from "./client.ts";
import { keys } from "./keys.ts";
import { prefixRange, queryAll } from "./query.ts";

/**
 * The first page read of each posting list of a longer query: enough to tell a short list (it
 * ends) and the sparsest of the others, small enough that the lists not read on cost little.
 */
const POSTING_FIRST_PAGE = 32;
/**
 * A list once read whole of at most this many postings is read alone, whatever is known of the
 * query's other lists: one Query call (about 6 KB with the texts), as much as a first page of two
 * of the others would cost.
 */
const SMALL_KNOWN_LIST = 100;

/** A posting's sort key ends with its contact's id, 10 digits. */
function idFromPostingSk(sk: string): number {
  return Number(sk.slice(-10));
}

type Item = Record<string, unknown>;

/** The texts of a posting item, when it has them (postings written before they carried texts have none). */
function textsOf(item: Item): readonly string[] | undefined {
  return Array.isArray(item["tx"]) ? (item["tx"] as unknown[]).map(String) : undefined;
}

/** What a read of postings returns: their keys, and their texts when the query is longer than a trigram. */
function projection(texts: boolean) {
  return texts ? { ProjectionExpression: "sk, tx" } : { ProjectionExpression: "sk" };
}

/** The candidates of one range of a trigram partition, read whole. */
async function rangeCandidates(accountId: number, prefix: string, texts: boolean): Promise<SearchCandidate[]> {
  const { lo, hi } = prefixRange(prefix);
  const items = await queryAll({
    KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
    ExpressionAttributeValues: { ":pk": keys.contactTrigramPartition(accountId, [...prefix][0]!).pk, ":lo": lo, ":hi": hi },
    ...projection(texts),
  });
  const byId = new Map<number, SearchCandidate>();
  for (const i of items) {
    const id = idFromPostingSk(String(i["sk"]));
    // A prefix range holds a contact once per trigram it starts (keys only); a trigram's range, once.
    const tx = texts ? textsOf(i) : undefined;
    byId.set(id, tx ? { id, texts: tx } : { id });
  }
  return [...byId.values()];
}

interface ListRead {
  readonly pk: string;
  readonly lo: string;
  readonly hi: string;
  readonly ids: Set<number>;
  readonly texts: Map<number, readonly string[]>;
  last: number;
  start: Item | undefined;
  done: boolean;
}

/** Reads the next page of a posting list (`limit` items, or to its end). */
async function readList(l: ListRead, texts: boolean, limit?: number): Promise<void> {
  const input = {
    KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
    ExpressionAttributeValues: { ":pk": l.pk, ":lo": l.lo, ":hi": l.hi },
    ...projection(texts),
  };
  const items: Item[] = [];
  if (limit === undefined) {
    let start = l.start;
    do {
      const out = await db().send(new QueryCommand({ ...input, TableName: mainTableName(), ExclusiveStartKey: start }));
      // Stryker disable next-line ArrayDeclaration: a Query's reply always holds Items
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    l.start = undefined;
  } else {
    const out = await db().send(new QueryCommand({ ...input, TableName: mainTableName(), Limit: limit, ExclusiveStartKey: l.start }));
    // Stryker disable next-line ArrayDeclaration: a Query's reply always holds Items
    items.push(...(out.Items ?? []));
    l.start = out.LastEvaluatedKey;
  }
  for (const i of items) {
    const id = idFromPostingSk(String(i["sk"]));
    l.ids.add(id);
    const tx = texts ? textsOf(i) : undefined;
    if (tx) l.texts.set(id, tx);
    l.last = Math.max(l.last, id);
  }
  l.done = !l.start;
}

/**
 * What this container's searches learned of posting lists' sizes, per account and trigram (the
 * oldest forgotten past LIST_STATS_MAX): it lets a later search of the same trigrams read only the
 * shortest list. Never a result: only which list is read (see `knownShortest`).
 */
const LIST_STATS_MAX = 20_000;
const listStats = new Map<string, ListStat>();
function statKey(accountId: number, tri: string): string {
  return `${accountId}\u0000${tri}`;
}

function statOf(l: ListRead): ListStat {
  return { size: l.ids.size, complete: l.done, last: l.last, textless: l.ids.size - l.texts.size };
}

function learn(accountId: number, tri: string, l: ListRead): void {
  const key = statKey(accountId, tri);
  listStats.delete(key);
  listStats.set(key, statOf(l));
  if (listStats.size > LIST_STATS_MAX) listStats.delete(listStats.keys().next().value!);
}

function newList(accountId: number, tri: string): ListRead {
  return { pk: keys.contactTrigramPartition(accountId, [...tri][0]!).pk, ...prefixRange(`${tri}#`), ids: new Set<number>(), texts: new Map(), last: 0, start: undefined, done: false };
}

/**
 * The candidates of a planned search (`planSearch`), from the fewest posting-list reads this
 * container knows how to make: a query's candidates, never a contact read.
 */
export async function searchCandidates(accountId: number, plan: SearchPlan): Promise<SearchCandidate[]> {
  // A prefix or a single trigram's posting list is one range: no rounds needed.
  if (plan.kind === "prefix") return rangeCandidates(accountId, plan.prefix, false);
  if (plan.trigrams.length === 1) return rangeCandidates(accountId, `${plan.trigrams[0]!}#`, plan.texts);
  // When earlier searches read these lists, the shortest is read alone: its texts decide.
  const known = plan.texts ? knownShortest(plan.trigrams, (tri) => listStats.get(statKey(accountId, tri)), SMALL_KNOWN_LIST) : undefined;
  if (known !== undefined) {
    const list = newList(accountId, known);
    await readList(list, plan.texts);
    learn(accountId, known, list);
    return candidatesOf([list])!;
  }
  // Rarest first: read a first page of every list no earlier search learned of (of every list,
  // when all were learned of), ids ascending. A list that ends there is the shortest; else the
  // smallest estimated, the sparsest so far or a list learned of, is read to its end: its
  // postings' texts decide each of its contacts, the other lists prune as far as they were read.
  const learned = new Map<string, ListStat>();
  for (const tri of plan.trigrams) {
    const stat = listStats.get(statKey(accountId, tri));
    if (stat) learned.set(tri, stat);
  }
  const unknown = plan.trigrams.filter((tri) => !learned.has(tri));
  const first = unknown.length > 0 ? unknown : plan.trigrams;
  const open = (tri: string) => ({ tri, list: newList(accountId, tri) });
  const lists = first.map(open);
  // A list that ends within its first page and whose postings all carry their texts decides the
  // search alone: the search goes on as soon as one has, not after the slowest first page. The
  // other pages still arrive and are learned of (errors past that point are of no consequence).
  const decisive = () => plan.texts && lists.some(({ list }) => list.done && list.texts.size === list.ids.size);
  await untilEnough(
    lists.map(({ tri, list }) => readList(list, plan.texts, POSTING_FIRST_PAGE).then(() => learn(accountId, tri, list))),
    decisive,
  );
  let found = candidatesOf(lists.map(({ list }) => list));
  if (!found) {
    const sparsest = lists[sparsestOf(lists.map(({ list }) => list))]!;
    const others = plan.trigrams.filter((tri) => !first.includes(tri));
    const pick = listToFinish([statOf(sparsest.list), ...others.map((tri) => learned.get(tri)!)]);
    const finish = pick === 0 ? sparsest : open(others[pick - 1]!);
    // Stryker disable next-line ConditionalExpression: pushing the sparsest too (`true`) adds a second copy of a list, which prunes nothing (`false` is killed)
    if (pick !== 0) lists.push(finish);
    await readList(finish.list, plan.texts);
    learn(accountId, finish.tri, finish.list);
    found = candidatesOf(lists.map(({ list }) => list))!;
  }
  return found;
}

/**
 * Waits for every read, or only until `enough()` holds after one of them has ended; the first
 * error before that is the result (as with Promise.all), errors after it are dropped.
 */
function untilEnough(reads: readonly Promise<void>[], enough: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let left = reads.length;
    // Stryker disable next-line ConditionalExpression: never called without reads (a search reads 2 lists or more)
    let over = left === 0;
    // Stryker disable next-line ConditionalExpression: as above
    if (over) resolve();
    for (const read of reads) {
      read.then(
        () => {
          left--;
          if (!over && (left === 0 || enough())) {
            // Stryker disable next-line BooleanLiteral: a promise settles once; `over` only spares the calls
            over = true;
            resolve();
          }
        },
        (err: unknown) => {
          // Stryker disable next-line ConditionalExpression: rejecting a settled promise does nothing (`false` is killed)
          if (!over) {
            // Stryker disable next-line BooleanLiteral: a promise settles once; `over` only spares the calls
            over = true;
            reject(err);
          }
        },
      );
    }
  });
}
