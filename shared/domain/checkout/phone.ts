/**
 * Brazilian phone numbers in their common written forms → E.164 (`+55` + DDD + number).
 * Accepted: `+55 11 91234-5678`, `(11) 91234-5678`, `11912345678`, `5511912345678`,
 * `011 91234-5678` (trunk prefix 0), with spaces, dots, dashes and parentheses anywhere.
 * Mobile numbers have 9 digits starting with 9; landlines 8 digits starting with 2 to 5.
 */

/** Area codes (DDD) in use (Anatel). */
const DDD = new Set([
  11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 24, 27, 28, 31, 32, 33, 34, 35, 37, 38, 41, 42, 43, 44, 45, 46, 47, 48, 49, 51, 53,
  54, 55, 61, 62, 63, 64, 65, 66, 67, 68, 69, 71, 73, 74, 75, 77, 79, 81, 82, 83, 84, 85, 86, 87, 88, 89, 91, 92, 93, 94, 95, 96,
  97, 98, 99,
]);

/** E.164 form, or undefined when not a Brazilian phone number. */
export function normalizeBrazilianPhone(input: string): string | undefined {
  const trimmed = input.trim();
  if (!/^\+?[0-9\s().-]+$/.test(trimmed)) return undefined;
  let digits = trimmed.replace(/[^0-9]/g, "");
  if (trimmed.startsWith("+")) {
    if (!digits.startsWith("55")) return undefined;
    digits = digits.slice(2);
  } else if ((digits.length === 12 || digits.length === 13) && digits.startsWith("55")) {
    digits = digits.slice(2);
  } else if (digits.startsWith("0")) {
    // The trunk prefix: `011 91234-5678`.
    digits = digits.slice(1);
  }
  if (!DDD.has(Number(digits.slice(0, 2)))) return undefined;
  // The subscriber's rules below leave 10 digits (DDD + landline) or 11 (DDD + mobile), no other length.
  const subscriber = digits.slice(2);
  const mobile = subscriber.length === 9 && subscriber.startsWith("9");
  const landline = subscriber.length === 8 && /^[2-5]/.test(subscriber);
  return mobile || landline ? `+55${digits}` : undefined;
}
