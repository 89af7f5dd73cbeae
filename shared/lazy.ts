/**
 * A value built on first use, then kept. For schemas a function may never need at all (replies
 * are checked outside production only; a checkout function reads plans or coupons, seldom both):
 * built lazily, they cost a deployed function's cold start nothing.
 */
export function lazy<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
