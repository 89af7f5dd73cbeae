/**
 * Contact search index: case-insensitive substring search without reading every
 * contact. Each contact gets one posting per distinct trigram of its searchable fields (name,
 * e-mail, phone, identifier), each field padded with two end sentinels so that every character
 * position starts a trigram. Then:
 * - a query of 3+ characters needs every one of its trigrams: the repository reads the posting
 *   lists of a few of them in rounds and stops at the first exhausted (smallest) one, whose
 *   contacts, less those another list rules out (candidatesOf), are the candidates;
 * - a query of 1-2 characters is a prefix of the trigrams starting at each occurrence: one
 *   `begins_with` over the partition of its first character.
 * Each posting carries the contact's indexed fields that hold its trigram (`texts`), so a query
 * of 4 or more characters is checked against the postings of one list, without reading the
 * contacts: the candidates that pass are exactly the matches (as far as the postings are current).
 * The contacts of the page returned are verified again, so a stale posting can only cost a read,
 * never a wrong result. At most MAX_TRIGRAMS postings per contact (TransactWriteItems holds 100
 * items): text past that cap (rare: > ~90 characters over the four fields) is not indexed.
 */

export const MAX_TRIGRAMS = 90;
/** End-of-field sentinel; control characters are removed from indexed text and queries. */
export const END = "\u0001";
/**
 * How many of a long query's trigrams are looked up (spread over the query, first and last
 * included): a first page of each is read in parallel, so more of them find a short list sooner.
 */
export const QUERY_TRIGRAMS = 6;

export interface SearchableContact {
  readonly name: string | null;
  readonly email: string | null;
  readonly phone_number: string | null;
  readonly identifier: string | null;
}

/** Lower-cased, control characters removed (letters of every script are kept). */
export function normalize(s: string): string {
  return s.toLowerCase().replace(/\p{Cc}/gu, "").trim();
}

function fieldsOf(c: SearchableContact): string[] {
  return [c.name, c.email, c.phone_number, c.identifier].filter((v): v is string => typeof v === "string").map(normalize);
}

/** The distinct trigrams indexed for a contact, in field order, capped. */
export function contactTrigrams(c: SearchableContact, max = MAX_TRIGRAMS): string[] {
  return trigramsOf(fieldsOf(c), max);
}

/** One posting of a contact: a trigram and the contact's indexed fields (normalized) that hold it. */
export interface TrigramPosting {
  readonly tri: string;
  readonly texts: readonly string[];
}

function padded(field: string): string {
  return `${field}${END}${END}`;
}

/** The postings of a contact: its capped trigrams, each with the distinct fields that hold it. */
export function contactPostings(c: SearchableContact, max = MAX_TRIGRAMS): TrigramPosting[] {
  const fields = [...new Set(fieldsOf(c))];
  return trigramsOf(fields, max).map((tri) => ({ tri, texts: fields.filter((f) => padded(f).includes(tri)) }));
}

/** Whether two postings of one trigram carry the same texts (so an update need not rewrite it). */
export function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Whether a posting's texts hold the normalized query: the check a contact's own fields would give. */
export function textsHold(texts: readonly string[], q: string): boolean {
  return texts.some((t) => t.includes(q));
}

function trigramsOf(fields: readonly string[], max: number): string[] {
  const out = new Set<string>();
  for (const field of fields) {
    const chars = [...field, END, END];
    for (let i = 0; i < chars.length - 2; i++) {
      out.add(chars.slice(i, i + 3).join(""));
      if (out.size >= max) return [...out];
    }
  }
  return [...out];
}

export type SearchPlan =
  | { readonly kind: "prefix"; readonly firstChar: string; readonly prefix: string }
  /** `texts`: the query is longer than a trigram, so the postings' texts are read to check it. */
  | { readonly kind: "trigrams"; readonly trigrams: readonly string[]; readonly texts: boolean };

/** How to find the candidates of a normalized, non-empty query. */
export function planSearch(q: string): SearchPlan {
  const chars = [...q];
  if (chars.length < 3) return { kind: "prefix", firstChar: chars[0]!, prefix: q };
  const all = [...new Set(chars.slice(0, -2).map((_, i) => chars.slice(i, i + 3).join("")))];
  const texts = chars.length > 3;
  // Spread over the query, first and last included: every trigram of a query that has at most QUERY_TRIGRAMS.
  const picked = new Set<string>();
  for (let k = 0; k < QUERY_TRIGRAMS; k++) picked.add(all[Math.round((k * (all.length - 1)) / (QUERY_TRIGRAMS - 1))]!);
  return { kind: "trigrams", trigrams: [...picked], texts };
}

/**
 * Whether the candidates of a normalized query are exactly its matches (as far as the postings are
 * current): a query of 1-3 characters is held by a field exactly when one of that field's trigrams
 * starts with it, so its one posting list (or prefix range) is the list of matches. A longer query
 * needs several trigrams, whose intersection is only a superset (each present, not necessarily in
 * a row; "aaaa" has the one trigram "aaa" of the field "aaa").
 */
export function postingsAreMatches(q: string): boolean {
  return [...q].length <= 3;
}

/** The verification every candidate goes through: a substring of one field. */
export function matchesContact(c: SearchableContact, q: string): boolean {
  return fieldsOf(c).some((f) => f.includes(q));
}

/** A candidate of a search: a contact id and, when its posting carries them, the texts it holds. */
export interface SearchCandidate {
  readonly id: number;
  /** Absent on a posting written before postings carried their texts: check the contact itself. */
  readonly texts?: readonly string[];
}

/** What has been read of one posting list: ids ascending, so `last` is the highest so far. */
export interface PostingRead {
  readonly ids: ReadonlySet<number>;
  /** The texts of the postings read, by contact id (when the plan reads them). */
  readonly texts?: ReadonlyMap<number, readonly string[]>;
  readonly last: number;
  /** The whole list has been read. */
  readonly done: boolean;
}

/**
 * The candidates of a trigram search once at least one list has been read to its end: the ids of
 * the smallest ended list that every list holds or has not read up to yet (a match holds every
 * trigram; a list read up to `last` rules out every id ≤ `last` it does not hold), with that
 * list's texts. `undefined` while no list has ended: read on.
 */
export function candidatesOf(lists: readonly PostingRead[]): SearchCandidate[] | undefined {
  // Stryker disable next-line MethodExpression,ArithmeticOperator,ArrowFunction: any ended list gives the same candidates (the others prune it, and a field holding the query is in the texts of every list); the smallest is the least to filter
  const smallest = lists.filter((l) => l.done).sort((a, b) => a.ids.size - b.ids.size)[0];
  if (!smallest) return undefined;
  // Stryker disable next-line EqualityOperator: `last` is an id the list holds, so `id >= last` adds nothing
  const notRuledOut = (id: number) => lists.every((l) => l.ids.has(id) || (!l.done && id > l.last));
  return [...smallest.ids]
    .filter(notRuledOut)
    .map((id) => {
      const texts = smallest.texts?.get(id);
      return texts ? { id, texts } : { id };
    });
}

/**
 * Which list to read to its end when none has ended after the first pages: the sparsest so far
 * (the highest contact id reached per posting read), the likeliest to be the shortest list, since
 * ids are spread over the account's contacts alike. Its texts decide every candidate on their own.
 */
export function sparsestOf(lists: readonly PostingRead[]): number {
  let best = 0;
  const density = (l: PostingRead) => l.last / Math.max(1, l.ids.size);
  lists.forEach((l, i) => {
    if (density(l) > density(lists[best]!)) best = i;
  });
  return best;
}

/**
 * What an earlier search learned of one posting list: how many postings it read, whether that was
 * the whole list, the highest contact id among them (ids are read ascending), and how many were
 * written before postings carried their texts.
 */
export interface ListStat {
  readonly size: number;
  readonly complete: boolean;
  readonly last: number;
  readonly textless: number;
}

/**
 * The trigram whose posting list a search can read alone, to its end, from what earlier searches
 * learned of the query's lists; undefined when that is not known. It is a list once read whole,
 * whose postings all carry their texts (else the other lists are worth reading, to prune the
 * contacts to check), and either
 * - at most `small` postings (no more than a first page of each list would read), the smallest
 *   such, whatever is known of the others; or
 * - the smallest list read whole, when every list is known and none is estimated smaller: a list
 *   read in part holds `size` postings up to id `last`, so about size x (highest id seen / last)
 *   over the ids seen.
 * The choice only decides how much is read, never the result: a posting list read to its end
 * holds every match, and its postings' texts decide each (a list that grew since is read whole
 * all the same).
 */
export function knownShortest(trigrams: readonly string[], statOf: (tri: string) => ListStat | undefined, small: number): string | undefined {
  const stats = trigrams.map(statOf);
  let best: number | undefined;
  stats.forEach((s, i) => {
    // Stryker disable next-line EqualityOperator: of two lists of one size either is read whole, at the same cost and with the same result
    if (s?.complete && s.textless === 0 && (best === undefined || s.size < stats[best]!.size)) best = i;
  });
  if (best === undefined) return undefined;
  const size = stats[best]!.size;
  if (size <= small) return trigrams[best];
  if (stats.some((s) => s === undefined)) return undefined;
  const known = stats as ListStat[];
  const estimate = estimator(known);
  // The list itself is estimated at its size: it passes.
  return known.every((s) => size <= estimate(s)) ? trigrams[best] : undefined;
}

/**
 * Estimated sizes of posting lists: a list read whole holds `size`; one read in part holds `size`
 * postings up to id `last`, so about size x (highest id seen / last) over the ids seen.
 */
function estimator(stats: readonly ListStat[]): (s: ListStat) => number {
  const highest = Math.max(1, ...stats.map((s) => s.last));
  return (s) => (s.complete ? s.size : (s.size * highest) / Math.max(1, s.last));
}

/**
 * Which list to read to its end when none of those a search read a first page of has ended: the
 * smallest estimated, among the sparsest of them (first) and the lists earlier searches learned of
 * that this one did not read (a tie keeps the first).
 */
export function listToFinish(stats: readonly ListStat[]): number {
  const estimate = estimator(stats);
  let best = 0;
  stats.forEach((s, i) => {
    if (estimate(s) < estimate(stats[best]!)) best = i;
  });
  return best;
}

/**
 * The candidates of a query of 4 or more characters decided by their postings' texts: `matches`
 * hold the query; `undecided` came from postings without texts (written before postings carried
 * them) and are checked against the contacts.
 */
export function decideByTexts(candidates: readonly SearchCandidate[], q: string): { matches: number[]; undecided: number[] } {
  const matches: number[] = [];
  const undecided: number[] = [];
  for (const c of candidates) {
    if (!c.texts) undecided.push(c.id);
    else if (textsHold(c.texts, q)) matches.push(c.id);
  }
  return { matches, undecided };
}
