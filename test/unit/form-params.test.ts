/** Form fields read as Rails reads params: lists, nested maps, last value wins, strict decoding. */
import { describe, expect, it } from "vitest";
import { railsParams, urlEncodedParams } from "../../shared/http/form-params.ts";

describe("Rails params from form fields", () => {
  it("reads plain names, lists and nested maps", () => {
    expect(
      urlEncodedParams("name=Maria+Souza&email=m%40example.com&attachment_ids[]=1&attachment_ids[]=2&custom_attributes[plan]=pro&custom_attributes[seats]=3"),
    ).toEqual({ name: "Maria Souza", email: "m@example.com", attachment_ids: ["1", "2"], custom_attributes: { plan: "pro", seats: "3" } });
    expect(urlEncodedParams("webhook%5Burl%5D=https%3A%2F%2Fh.example%2Fx&webhook[subscriptions][]=inbox_created&webhook[subscriptions][]=contact_created")).toEqual({
      webhook: { url: "https://h.example/x", subscriptions: ["inbox_created", "contact_created"] },
    });
    expect(urlEncodedParams("a[b][c][d]=deep&flag&=empty-name")).toEqual({ a: { b: { c: { d: "deep" } } }, flag: "", "": "empty-name" });
  });

  it("keeps the last value of a name given twice, as Rails does", () => {
    expect(urlEncodedParams("status=open&status=resolved")).toEqual({ status: "resolved" });
    expect(urlEncodedParams("m=1&m[k]=2")).toEqual({ m: { k: "2" } });
    // A list, then a map of the same name (and the other way round): the later one.
    expect(urlEncodedParams("a[]=1&a[k]=2")).toEqual({ a: { k: "2" } });
    expect(urlEncodedParams("a[k]=1&a[]=2")).toEqual({ a: ["2"] });
    expect(urlEncodedParams("a[]=1&a[b][c]=2")).toEqual({ a: { b: { c: "2" } } });
    expect(urlEncodedParams("a=1&a[b][c]=2&a[b][d]=3")).toEqual({ a: { b: { c: "2", d: "3" } } });
  });

  it("skips empty pairs, and takes a name that is not a bracket path whole", () => {
    expect(urlEncodedParams("a=1&&b=2&")).toEqual({ a: "1", b: "2" });
    expect(urlEncodedParams("a[b]c=1&x]a[b]=2&[k]=3&q[=4")).toEqual({ "a[b]c": "1", "x]a[b]": "2", "[k]": "3", "q[": "4" });
  });

  it("gives plain, writable, deletable fields", () => {
    const p = urlEncodedParams("a=1&b[c]=2");
    p["a"] = "changed";
    delete p["b"];
    expect(p).toEqual({ a: "changed" });
    expect(JSON.stringify(urlEncodedParams("x[y]=1"))).toBe('{"x":{"y":"1"}}');
  });

  it("reads a list of maps as Rack does: a key met again starts the next map", () => {
    expect(urlEncodedParams("items[][title]=A&items[][value]=a&items[][title]=B&items[][value]=b")).toEqual({
      items: [{ title: "A", value: "a" }, { title: "B", value: "b" }],
    });
    expect(urlEncodedParams("content_attributes[items][][title]=A&content_attributes[items][][actions][][text]=Go&content_attributes[items][][title]=B")).toEqual({
      content_attributes: { items: [{ title: "A", actions: [{ text: "Go" }] }, { title: "B" }] },
    });
    // A list inside the maps: a map that has the list already is done, the value starts the next one.
    expect(urlEncodedParams("items[][tags][]=x&items[][tags][]=y")).toEqual({ items: [{ tags: ["x"] }, { tags: ["y"] }] });
  });

  it("nests 32 levels and refuses a deeper path with a 422 naming the field", () => {
    let nested: unknown = "v";
    for (let i = 0; i < 32; i++) nested = { k: nested };
    expect(railsParams([[`a${"[k]".repeat(32)}`, "v"]])).toEqual({ a: nested });
    expect(() => railsParams([[`a${"[k]".repeat(33)}`, "v"]])).toThrow(expect.objectContaining({ status: 422, errors: [{ field: "a", code: "too_deep", message: "is nested deeper than 32 levels" }] }));
  });

  it("builds a long list in linear time (a list is appended to, not copied)", () => {
    const body = Array.from({ length: 200_000 }, (_, i) => `l[]=${i}`).join("&");
    const started = performance.now();
    const p = urlEncodedParams(body);
    expect((p["l"] as string[]).length).toBe(200_000);
    // Copying the list on every append takes minutes here; appending, well under a second.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("never touches a prototype: __proto__ and constructor are fields like any other", () => {
    const p = urlEncodedParams("__proto__[polluted]=yes&constructor[prototype][x]=1");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.keys(p)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(p)).toBe(Object.prototype);
    expect(Object.hasOwn(p, "__proto__")).toBe(true);
  });

  it("refuses a malformed escape or invalid UTF-8 with 400 bad_encoding", () => {
    for (const bad of ["name=%ZZ", "name=%E0%A4%A", "name=%FF", "na%C3me=x", "name=%ED%A0%80"]) {
      expect(() => urlEncodedParams(bad), bad).toThrow(expect.objectContaining({ status: 400, code: "bad_encoding", message: "The form body is not valid UTF-8" }));
    }
  });
});
