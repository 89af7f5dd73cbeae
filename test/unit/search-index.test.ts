import { describe, expect, it } from "vitest";
import { contactTrigrams, END, matchesContact, MAX_TRIGRAMS, normalize, planSearch, QUERY_TRIGRAMS } from "../../shared/domain/search-index.ts";

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

  it("verifies a substring within one field, never across fields", () => {
    expect(matchesContact(contact("Ana Lima", "al@x.io"), normalize("LIMA"))).toBe(true);
    expect(matchesContact(contact("Ana", "lima@x.io"), "analima")).toBe(false);
    expect(normalize(" A\u0001B ")).toBe("ab");
  });
});
