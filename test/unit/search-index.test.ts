import { describe, expect, it } from "vitest";
import { candidatesOf, contactTrigrams, END, matchesContact, MAX_TRIGRAMS, normalize, planSearch, postingsAreMatches, QUERY_TRIGRAMS } from "../../shared/domain/search-index.ts";

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
    expect(planSearch("joao")).toEqual({ kind: "trigrams", trigrams: ["joa", "oao"] });
    const long = planSearch("maria.silva@example.com");
    expect(long.kind).toBe("trigrams");
    expect(long.kind === "trigrams" && long.trigrams.length).toBe(QUERY_TRIGRAMS);
    expect(long.kind === "trigrams" && long.trigrams[0]).toBe("mar");
    expect(long.kind === "trigrams" && long.trigrams.at(-1)).toBe("com");
  });

  it("treats the postings as the matches only for queries of 1 to 3 characters", () => {
    // "aaaa" needs only the trigram "aaa", which the field "aaa" holds without containing "aaaa".
    expect(planSearch("aaaa")).toEqual({ kind: "trigrams", trigrams: ["aaa"] });
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
    expect(candidatesOf([list([1, 3, 5, 10], false), list([3, 7, 12, 40], true)])).toEqual([3, 12, 40]);
    // Two ended lists: the smaller one is walked, the other is a plain intersection.
    expect(candidatesOf([list([2, 4, 6, 8, 10], true), list([4, 9, 10], true), list([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], false)])).toEqual([4, 10]);
    expect(candidatesOf([list([], true), list([1, 2], false)])).toEqual([]);
  });
});
