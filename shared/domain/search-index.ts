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
 * Candidates are always verified against the contact itself, so a stale posting can only cost a
 * read, never a wrong result. At most MAX_TRIGRAMS postings per contact (TransactWriteItems holds
 * 100 items): text past that cap (rare: > ~90 characters over the four fields) is not indexed.
 */

export const MAX_TRIGRAMS = 90;
/** End-of-field sentinel; control characters are removed from indexed text and queries. */
export const END = "\u0001";
/** How many of a long query's trigrams are read (spread over the query). */
export const QUERY_TRIGRAMS = 3;

export interface SearchableContact {
  readonly name: string | null;
  readonly email: string | null;
  readonly phone_number: string | null;
  readonly identifier: string | null;
}

/** Lower-cased, control characters removed (letters of every script are kept). */
export const normalize = (s: string): string => s.toLowerCase().replace(/\p{Cc}/gu, "").trim();

const fieldsOf = (c: SearchableContact): string[] =>
  [c.name, c.email, c.phone_number, c.identifier].filter((v): v is string => typeof v === "string").map(normalize).filter(Boolean);

/** The distinct trigrams indexed for a contact, in field order, capped. */
export function contactTrigrams(c: SearchableContact, max = MAX_TRIGRAMS): string[] {
  const out = new Set<string>();
  for (const field of fieldsOf(c)) {
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
  | { readonly kind: "trigrams"; readonly trigrams: readonly string[] };

/** How to find the candidates of a normalized, non-empty query. */
export function planSearch(q: string): SearchPlan {
  const chars = [...q];
  if (chars.length < 3) return { kind: "prefix", firstChar: chars[0]!, prefix: q };
  const all = [...new Set(chars.slice(0, -2).map((_, i) => chars.slice(i, i + 3).join("")))];
  if (all.length <= QUERY_TRIGRAMS) return { kind: "trigrams", trigrams: all };
  const picked = new Set<string>();
  for (let k = 0; k < QUERY_TRIGRAMS; k++) picked.add(all[Math.round((k * (all.length - 1)) / (QUERY_TRIGRAMS - 1))]!);
  return { kind: "trigrams", trigrams: [...picked] };
}

/**
 * Whether the candidates of a normalized query are exactly its matches (as far as the postings are
 * current): a query of 1-3 characters is held by a field exactly when one of that field's trigrams
 * starts with it, so its one posting list (or prefix range) is the list of matches. A longer query
 * needs several trigrams, whose intersection is only a superset (each present, not necessarily in
 * a row; "aaaa" has the one trigram "aaa" of the field "aaa").
 */
export const postingsAreMatches = (q: string): boolean => [...q].length <= 3;

/** The verification every candidate goes through: a substring of one field. */
export const matchesContact = (c: SearchableContact, q: string): boolean => fieldsOf(c).some((f) => f.includes(q));

/** What has been read of one posting list: ids ascending, so `last` is the highest so far. */
export interface PostingRead {
  readonly ids: ReadonlySet<number>;
  readonly last: number;
  /** The whole list has been read. */
  readonly done: boolean;
}

/**
 * The candidates of a trigram search once at least one list has been read to its end: the ids of
 * the smallest ended list that every list holds or has not read up to yet (a match holds every
 * trigram; a list read up to `last` rules out every id ≤ `last` it does not hold). `undefined`
 * while no list has ended: read another page.
 */
export function candidatesOf(lists: readonly PostingRead[]): number[] | undefined {
  const smallest = lists.filter((l) => l.done).sort((a, b) => a.ids.size - b.ids.size)[0];
  if (!smallest) return undefined;
  return [...smallest.ids].filter((id) => lists.every((l) => l.ids.has(id) || (!l.done && id > l.last)));
}
