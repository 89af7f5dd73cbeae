/**
 * CNPJ: exactly 14 characters once the separators are removed, and `isValidCnpj` answering the
 * same as the normalization. The module is loaded afresh in each test (vi.resetModules) so the
 * pattern it checks, a module constant, is the one of a module loaded within the test. (The
 * mutation run, docs/mutation.md, credits module-level code to the test during which it ran.)
 */
import { describe, expect, it, vi } from "vitest";

async function load() {
  vi.resetModules();
  return import("../../shared/domain/checkout/cnpj.ts");
}

describe("CNPJ length and validity", () => {
  it.each([
    ["a valid CNPJ followed by its check digits again", "1122233300018181"],
    ["the same, formatted", "11.222.333/0001-81-81"],
    ["a valid CNPJ with a character before it", "A11222333000181"],
    ["a valid CNPJ with a digit after it", "112223330001810"],
  ])("refuses anything but the 14 characters: %s (%s)", async (_why, input) => {
    const { isValidCnpj, normalizeCnpj } = await load();

    expect(normalizeCnpj(input)).toBeUndefined();
    expect(isValidCnpj(input)).toBe(false);
  });

  it("says valid exactly when the CNPJ normalizes, numeric or alphanumeric", async () => {
    const { isValidCnpj, normalizeCnpj } = await load();

    expect(isValidCnpj("11.222.333/0001-81")).toBe(true);
    expect(isValidCnpj("12.abc.345/01de-35")).toBe(true);
    expect(normalizeCnpj("12.abc.345/01de-35")).toBe("12ABC34501DE35");
    expect(isValidCnpj("11.222.333/0001-82")).toBe(false);
  });
});
