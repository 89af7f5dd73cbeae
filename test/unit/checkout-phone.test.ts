/**
 * Brazilian phone numbers → E.164: the written forms accepted (country code with or without `+`,
 * trunk prefix 0, spaces around) and what is refused (other countries, text around the number,
 * numbers of the wrong length for their kind).
 */
import { describe, expect, it } from "vitest";
import { normalizeBrazilianPhone } from "../../shared/domain/checkout/phone.ts";

describe("Brazilian phone forms", () => {
  it.each([
    ["spaces around an international form", " +55 11 91234-5678 ", "+5511912345678"],
    ["a tab and a newline around", "\t(11) 91234-5678\n", "+5511912345678"],
    ["country code without +, landline (12 digits)", "55 21 3456-7890", "+552134567890"],
    ["country code without +, mobile (13 digits)", "55 21 98765-4321", "+5521987654321"],
    ["trunk prefix 0, landline (11 digits)", "(021) 3456-7890", "+552134567890"],
    ["trunk prefix 0, mobile (12 digits)", "(021) 98765-4321", "+5521987654321"],
    ["+55 with a landline", "+55 21 3456-7890", "+552134567890"],
    ["landline starting with 5", "(11) 5123-4567", "+551151234567"],
  ])("accepts %s: %s -> %s", (_why, input, e164) => {
    expect(normalizeBrazilianPhone(input)).toBe(e164);
  });

  it.each([
    ["a Moscow number (+7), though its digits read like a DDD and a mobile", "+7 495 123-45-67"],
    ["a Buenos Aires number (+54), though its last 10 digits read like a landline", "+54 11 2345-6789"],
    ["a + in the middle", "55 +11 91234-5678"],
    ["text before the number", "tel 11 91234-5678"],
    ["text after the number", "11 91234-5678 ramal"],
    ["8 digits starting with 9 (the mobile format before the ninth digit)", "(11) 9123-4567"],
    ["9 digits not starting with 9", "(11) 34567-8901"],
    ["landline starting with 6", "(11) 6123-4567"],
    ["10 digits after the DDD", "+55 11 91234-56780"],
    ["7 digits after the DDD", "+55 11 3456-789"],
    ["trunk prefix 0 with 7 digits after the DDD", "011 3456-789"],
    ["trunk prefix 0 with 10 digits after the DDD", "011 91234-56780"],
    ["trunk prefix 0 twice", "0011 91234-5678"],
    ["only a DDD", "(11)"],
    ["only separators", "() -"],
  ])("refuses %s: %s", (_why, input) => {
    expect(normalizeBrazilianPhone(input)).toBeUndefined();
  });
});
