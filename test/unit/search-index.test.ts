import { describe, expect, it } from "vitest";
import {
  candidatesOf,
  contactPostings,
  contactTrigrams,
  decideByTexts,
  END,
  knownShortest,
  listToFinish,
  type ListStat,
  matchesContact,
  MAX_TRIGRAMS,
  normalize,
  planSearch,
  postingsAreMatches,
  QUERY_TRIGRAMS,
  sameTexts,
  sparsestOf,
  textsHold,
} from "../../shared/domain/search-index.ts";

const contact = (name: string, email: string | null = null) => ({ name, email, phone_number: null, identifier: null });

describe("contact search index", () => {
  it("indexes one trigram per character position of each field, padded at the end, lower-cased and deduplicated", () => {
    expect(contactTrigrams(contact("AbAb"))).toEqual(["aba", "bab", `ab${END}`, `b${END}${END}`]);
    expect(contactTrigrams(contact("Zé", "ZE@x.io"))).toEqual([`zé${END}`, `é${END}${END}`, "ze@", "e@x", "@x.", "x.i", ".io", `io${END}`, `o${END}${END}`]);
  });

  it("caps the postings of a contact", () => {
    const long = contact("x".repeat(10) + Array.from({ length: 200 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(""));
    expect(contactTrigrams(long)).toHaveLength(MAX_TRIGRAMS);
  });

  it("plans a prefix scan for short queries and a spread of trigrams for long ones", () => {
    expect(planSearch("jo")).toEqual({ kind: "prefix", firstChar: "j", prefix: "jo" });
    expect(planSearch("joao")).toEqual({ kind: "trigrams", trigrams: ["joa", "oao"], texts: true });
    expect(planSearch("joã")).toEqual({ kind: "trigrams", trigrams: ["joã"], texts: false });
    const long = planSearch("maria.silva@example.com");
    expect(long.kind).toBe("trigrams");
    expect(long.kind === "trigrams" && long.trigrams.length).toBe(QUERY_TRIGRAMS);
    expect(long.kind === "trigrams" && long.trigrams[0]).toBe("mar");
    expect(long.kind === "trigrams" && long.trigrams.at(-1)).toBe("com");
  });

  it("treats the postings as the matches only for queries of 1 to 3 characters", () => {
    // "aaaa" needs only the trigram "aaa", which the field "aaa" holds without containing "aaaa".
    expect(planSearch("aaaa")).toEqual({ kind: "trigrams", trigrams: ["aaa"], texts: true });
    expect(matchesContact(contact("aaa"), "aaaa")).toBe(false);
    expect([postingsAreMatches("a"), postingsAreMatches("jo"), postingsAreMatches("joã"), postingsAreMatches("aaaa"), postingsAreMatches("joao")]).toEqual([true, true, true, false, false]);
  });

  it("verifies a substring within one field, never across fields", () => {
    expect(matchesContact(contact("Ana Lima", "al@x.io"), normalize("LIMA"))).toBe(true);
    expect(matchesContact(contact("Ana", "lima@x.io"), "analima")).toBe(false);
    expect(normalize(" A\u0001B ")).toBe("ab");
  });

  it("takes the candidates from the smallest ended list, pruned by every list as far as it was read", () => {
    const list = (ids: number[], done: boolean) => ({ ids: new Set(ids), last: Math.max(0, ...ids), done });
    // Nothing ended yet: another page is needed.
    expect(candidatesOf([list([1, 2, 3], false), list([2, 3, 4], false)])).toBeUndefined();
    // The ended list [3, 7, 12, 40] against a list read up to 10 that holds 3 and 5: 7 is ruled
    // out (read past, not held), 12 and 40 are not reached yet and stay candidates.
    expect(candidatesOf([list([1, 3, 5, 10], false), list([3, 7, 12, 40], true)])).toEqual([{ id: 3 }, { id: 12 }, { id: 40 }]);
    // Two ended lists: the smaller one is walked, the other is a plain intersection.
    expect(candidatesOf([list([2, 4, 6, 8, 10], true), list([4, 9, 10], true), list([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], false)])).toEqual([{ id: 4 }, { id: 10 }]);
    expect(candidatesOf([list([], true), list([1, 2], false)])).toEqual([]);
  });

  it("gives every posting the distinct fields that hold its trigram, end sentinels included", () => {
    const c = { name: "Ana Lima", email: "lima@x.io", phone_number: null, identifier: "ana lima" };
    const postings = contactPostings(c);
    const of = (tri: string) => postings.find((p) => p.tri === tri)?.texts;
    expect(postings.map((p) => p.tri)).toEqual(contactTrigrams(c));
    expect(of("lim")).toEqual(["ana lima", "lima@x.io"]);
    expect(of("ana")).toEqual(["ana lima"]);
    expect(of(`io${END}`)).toEqual(["lima@x.io"]);
    expect(of(`ma${END}`)).toEqual(["ana lima"]);
    // Past the cap a trigram is not indexed, but one that is carries every field holding it.
    const capped = contactPostings(contact("x".repeat(10) + Array.from({ length: 200 }, (_, i) => String.fromCharCode(0x4e00 + i)).join(""), "xxx@y.z"));
    expect(capped).toHaveLength(MAX_TRIGRAMS);
    expect(capped[0]).toEqual({ tri: "xxx", texts: [expect.stringMatching(/^x{10}/), "xxx@y.z"] });
  });

  it("compares texts in order and holds a query only within one field", () => {
    expect(sameTexts(["a", "b"], ["a", "b"])).toBe(true);
    expect(sameTexts(["a", "b"], ["b", "a"])).toBe(false);
    expect(sameTexts(["a"], ["a", "b"])).toBe(false);
    expect(sameTexts([], [])).toBe(true);
    expect(textsHold(["ana lima", "lima@x.io"], "a lim")).toBe(true);
    expect(textsHold(["ana", "lima"], "analima")).toBe(false);
    expect(textsHold([], "x")).toBe(false);
  });

  it("decides candidates by their texts; candidates without texts are left to the contacts", () => {
    const decided = decideByTexts([{ id: 1, texts: ["ana ferreira"] }, { id: 2, texts: ["ferre ira"] }, { id: 3 }, { id: 4, texts: ["x", "joana ferreira"] }], "ferreira");
    expect(decided).toEqual({ matches: [1, 4], undecided: [3] });
  });

  it("keeps the ended list's texts with its candidates", () => {
    const lists = [
      { ids: new Set([1, 2, 5]), texts: new Map([[1, ["a1"]], [2, ["a2"]], [5, ["a5"]]]), last: 5, done: true },
      { ids: new Set([2, 3]), texts: new Map([[2, ["b2"]]]), last: 3, done: false },
    ];
    // 1 is ruled out (read past, not held); 2 is held; 5 is past what the other list read.
    expect(candidatesOf(lists)).toEqual([{ id: 2, texts: ["a2"] }, { id: 5, texts: ["a5"] }]);
  });

  it("reads on the sparsest list: the highest id reached per posting read", () => {
    const list = (n: number, last: number) => ({ ids: new Set(Array.from({ length: n }, (_, i) => i + 1)), last, done: false });
    expect(sparsestOf([list(200, 1000), list(200, 5000), list(200, 2500)])).toBe(1);
    expect(sparsestOf([list(200, 4000), list(100, 2500), list(200, 1000)])).toBe(1);
    // A tie keeps the first; an empty list counts as one posting.
    expect(sparsestOf([list(200, 3000), list(200, 3000)])).toBe(0);
    expect(sparsestOf([list(2, 10), list(0, 0), list(1, 6)])).toBe(2);
  });

  describe("the list a search reads alone, from what earlier searches learned", () => {
    const whole = (size: number, last: number): ListStat => ({ size, complete: true, last, textless: 0 });
    const part = (size: number, last: number): ListStat => ({ size, complete: false, last, textless: 0 });
    /** Lists of at most 4 postings are small here (a first page of 4). */
    const pick = (trigrams: string[], stats: Record<string, ListStat>) => knownShortest(trigrams, (tri) => stats[tri], 4);

    it("is a small list read whole, the smallest such, whatever is known of the others", () => {
      expect(pick(["abc", "bcd", "cde"], { bcd: whole(3, 900) })).toBe("bcd");
      expect(pick(["abc", "bcd", "cde"], { abc: whole(4, 900), bcd: whole(2, 900), cde: part(4, 10) })).toBe("bcd");
      // An empty list read whole: no contact holds that trigram.
      expect(pick(["abc", "bcd"], { abc: whole(0, 0) })).toBe("abc");
      // At most `small`: a list of exactly that many is read alone too.
      expect(pick(["abc", "bcd"], { abc: whole(4, 900) })).toBe("abc");
      expect(pick(["abc", "bcd"], { bcd: whole(5, 900) })).toBeUndefined();
    });

    it("is the smallest list read whole when every list is known and none is estimated smaller", () => {
      expect(pick(["abc", "bcd", "cde"], { abc: whole(40, 9000), bcd: whole(6, 8000), cde: whole(12, 9900) })).toBe("bcd");
      // 32 postings up to id 100 of ids up to 10 000: about 3 200.
      expect(pick(["abc", "bcd"], { abc: part(32, 100), bcd: whole(400, 10_000) })).toBe("bcd");
      // Equal estimates: the list read whole is taken.
      expect(pick(["abc", "bcd"], { abc: part(32, 5000), bcd: whole(64, 10_000) })).toBe("bcd");
    });

    it("is none when no list was read whole or one read in part may be shorter", () => {
      expect(pick(["abc", "bcd"], { abc: part(32, 100), bcd: part(32, 900) })).toBeUndefined();
      // 32 postings up to id 8 000 of ids up to 10 000: about 40.
      expect(pick(["abc", "bcd"], { abc: part(32, 8000), bcd: whole(400, 10_000) })).toBeUndefined();
      expect(pick(["abc", "bcd"], { abc: part(32, 8000), bcd: whole(41, 10_000) })).toBeUndefined();
      expect(pick(["abc", "bcd"], { abc: part(32, 8000), bcd: whole(40, 10_000) })).toBe("bcd");
    });

    it("reads to its end the smallest estimated list: the sparsest read in part or one learned of", () => {
      // The sparsest read now: 32 postings up to id 6 400 (about 50 of ids up to 10 000).
      expect(listToFinish([part(32, 6400), whole(400, 10_000), part(32, 800)])).toBe(0);
      expect(listToFinish([part(32, 6400), whole(40, 10_000), part(32, 800)])).toBe(1);
      expect(listToFinish([part(32, 6400), whole(400, 10_000), part(32, 9000)])).toBe(2);
      // A tie keeps the list read now.
      expect(listToFinish([part(32, 3200), whole(100, 10_000)])).toBe(0);
    });

    it("never picks a list holding postings without texts, whose contacts the other lists would prune", () => {
      const textless = { ...whole(3, 50), textless: 1 };
      expect(pick(["abc", "bcd"], { abc: textless })).toBeUndefined();
      expect(pick(["abc", "bcd"], { abc: textless, bcd: whole(9, 90) })).toBeUndefined();
      expect(pick(["abc", "bcd"], { abc: { ...whole(30, 90), textless: 1 }, bcd: whole(9, 90) })).toBe("bcd");
    });
  });
});
