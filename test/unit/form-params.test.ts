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
  });

  it("takes a list of maps or a path deeper than 32 as a plain name", () => {
    expect(urlEncodedParams("items[][title]=x")).toEqual({ "items[][title]": "x" });
    const deep = `a${"[k]".repeat(33)}`;
    expect(railsParams([[deep, "v"]])).toEqual({ [deep]: "v" });
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
      expect(() => urlEncodedParams(bad), bad).toThrow(expect.objectContaining({ status: 400, code: "bad_encoding" }));
    }
  });
});
