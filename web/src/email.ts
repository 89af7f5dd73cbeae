/**
 * The e-mail rule of the API's schemas, on the page: trimmed and lower-cased, at most 254
 * characters, and zod's e-mail pattern (a dotted local part, a domain of labels ending in a
 * top-level domain of two letters or more). A copy of the pattern, not an import: zod's module of
 * patterns weighs more than the page's own script; a browser test holds the two equal.
 */
export const EMAIL = /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/;

export const validEmail = (value: string): boolean => {
  const v = value.trim().toLowerCase();
  return v.length <= 254 && EMAIL.test(v);
};
