/**
 * CNPJ (Brazilian company registration) with check digits, numeric and alphanumeric:
 * 14 characters once `.`, `/`, `-` are removed; the first 12 are digits or capital
 * letters, the last 2 are mod-11 check digits where each character is worth its ASCII code − 48.
 */

const BODY = /^[0-9A-Z]{12}[0-9]{2}$/;
const W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

function checkDigit(chars: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += (chars.charCodeAt(i) - 48) * weights[i]!;
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** The 14-character form (separators removed, letters upper-cased), or undefined when invalid. */
export function normalizeCnpj(input: string): string | undefined {
  const s = input.trim().replace(/[./-]/g, "").toUpperCase();
  if (!BODY.test(s)) return undefined;
  // Stryker disable next-line Regex: BODY already fixed the length at 14, so the anchors change nothing
  if (/^(.)\1{13}$/.test(s)) return undefined;
  const d1 = checkDigit(s, W1);
  // Stryker disable next-line MethodExpression: with s instead of its first 12, the 13th character differs from d1 only when the result is refused anyway
  const d2 = checkDigit(s.slice(0, 12) + String(d1), W2);
  return s.endsWith(`${d1}${d2}`) ? s : undefined;
}

export const isValidCnpj = (input: string): boolean => normalizeCnpj(input) !== undefined;

/** `12ABC34501DE35` → `12.ABC.345/01DE-35`. */
export function formatCnpj(cnpj14: string): string {
  return `${cnpj14.slice(0, 2)}.${cnpj14.slice(2, 5)}.${cnpj14.slice(5, 8)}/${cnpj14.slice(8, 12)}-${cnpj14.slice(12)}`;
}
