/**
 * The Idempotency-Key rules of subscribe that need no database: the header's form, the canonical
 * body that decides "same body" whatever the key order, and the sealed first reply.
 *
 * Each test loads the modules afresh (vi.resetModules + import), so what they compute when they
 * load (the key format) is computed inside the test that checks it.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";

beforeEach(() => {
  vi.resetModules();
});

const idem = () => import("../../shared/domain/checkout/idempotency.ts");
const header = () => import("../../shared/http/idempotency.ts");

describe("Idempotency-Key header: 1 to 255 printable ASCII characters", () => {
  it("accepts a UUID, one character, 255 characters and every printable symbol, trimmed", async () => {
    const { idempotencyKey } = await header();
    const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join("");
    // A space is printable too: inside a key it is kept (around it, trimmed).
    for (const key of ["550e8400-e29b-41d4-a716-446655440000", "a", "~", "x".repeat(255), printable, "two words", "a b"]) {
      expect(idempotencyKey({ "idempotency-key": key }), key).toBe(key);
    }
    expect(idempotencyKey({ "idempotency-key": "  form-42  " })).toBe("form-42");
    expect(idempotencyKey({})).toBeUndefined();
  });

  it("refuses anything else with 400 bad_idempotency_key", async () => {
    const { idempotencyKey } = await header();
    const bad = ["", "   ", "x".repeat(256), "tab\tinside", "ação", "é-then-ascii", "ascii-then-é", "del\u007f", "nul\u0000"];
    for (const key of bad) {
      let thrown: unknown;
      try {
        idempotencyKey({ "idempotency-key": key });
      } catch (err) {
        thrown = err;
      }
      expect(thrown, JSON.stringify(key)).toMatchObject({ status: 400, code: "bad_idempotency_key" });
    }
  });
});

describe("canonical JSON", () => {
  it("is JSON with object keys sorted at every depth, arrays in their own order", async () => {
    const { canonicalJson } = await idem();

    expect(canonicalJson({ e: 5, d: 4, c: 3, b: 2, a: 1 })).toBe('{"a":1,"b":2,"c":3,"d":4,"e":5}');
    expect(canonicalJson({ b: 1, a: { d: [3, { y: 2, x: 1 }, "s"], c: null } })).toBe('{"a":{"c":null,"d":[3,{"x":1,"y":2},"s"]},"b":1}');
    expect(canonicalJson([2, 1, [true, "z"]])).toBe('[2,1,[true,"z"]]');
    expect(canonicalJson([])).toBe("[]");
    expect(canonicalJson({})).toBe("{}");
    // Code-unit order, as JSON compares strings: upper case before lower case.
    expect(canonicalJson({ b: 1, B: 2, "a b": 3, 'q"': 4 })).toBe('{"B":2,"a b":3,"b":1,"q\\"":4}');
  });

  it("writes what JSON writes: undefined members left out, undefined in an array as null", async () => {
    const { canonicalJson } = await idem();

    expect(canonicalJson({ b: 1, a: undefined })).toBe('{"b":1}');
    expect(canonicalJson({ coupon: undefined })).toBe("{}");
    expect(canonicalJson([undefined, 1])).toBe("[null,1]");
    expect(canonicalJson({ list: [undefined] })).toBe('{"list":[null]}');
    for (const value of [{ a: undefined, b: [undefined, null, 0, ""] }, [{ z: 1, y: undefined }], "text", 12.5, null, true]) {
      expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
    }
  });

  it("the fingerprint is the same for the same body in any key order, and differs for another body", async () => {
    const { fingerprint } = await idem();

    expect(fingerprint({ plan: "pro", user: { name: "M", email: "m@x.com" } })).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint({ plan: "pro", user: { name: "M", email: "m@x.com" } })).toBe(fingerprint({ user: { email: "m@x.com", name: "M" }, plan: "pro" }));
    expect(fingerprint({ plan: "pro", coupon: undefined })).toBe(fingerprint({ plan: "pro" }));
    expect(fingerprint({ plan: "pro" })).not.toBe(fingerprint({ plan: "basic" }));
    expect(fingerprint({ a: [1, 2] })).not.toBe(fingerprint({ a: [2, 1] }));
  });
});

describe("the sealed first reply", () => {
  it("opens with the same secret part in any key order, and with no other", async () => {
    const { seal, unseal } = await idem();
    const reply = { access_token: "cv_secret", account: { id: 7, name: "Empresa Ação ✓" } };

    const sealed = await seal(reply, { user: { password: "right", email: "m@x.com" }, plan: "pro" });

    expect(Buffer.from(sealed, "base64").toString("latin1")).not.toContain("cv_secret");
    expect(await unseal(sealed, { plan: "pro", user: { email: "m@x.com", password: "right" } })).toEqual(reply);
    expect(await unseal(sealed, { plan: "pro", user: { email: "m@x.com", password: "wrong" } })).toBeUndefined();
  });

  it("opens even the shortest reply (one JSON character)", async () => {
    const { seal, unseal } = await idem();

    expect(await unseal(await seal(0, "s"), "s")).toBe(0);
    expect(await unseal(await seal("", "s"), "s")).toBe("");
  });

  it("a damaged or truncated sealed value opens to nothing", async () => {
    const { seal, unseal } = await idem();
    const buf = Buffer.from(await seal({ ok: true }, "s"), "base64");
    const flipped = Buffer.from(buf);
    flipped.writeUInt8(flipped.readUInt8(flipped.length - 1) ^ 1, flipped.length - 1);

    expect(await unseal(flipped.toString("base64"), "s")).toBeUndefined();
    expect(await unseal(buf.subarray(0, 44).toString("base64"), "s")).toBeUndefined();
    expect(await unseal(buf.subarray(0, 20).toString("base64"), "s")).toBeUndefined();
    expect(await unseal("", "s")).toBeUndefined();
  });
});
