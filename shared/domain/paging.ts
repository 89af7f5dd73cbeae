/**
 * Pagination of every list: `page` (1-based), `per` (default 25, clamped to 1..100)
 * and an opaque `cursor`. Lists are keyed by integer ids, so a cursor is "after id N".
 */

export const DEFAULT_PER = 25;
export const MAX_PER = 100;

export interface PageRequest {
  readonly page: number;
  readonly per: number;
  /** Decoded cursor: continue after this id (in the list's order). */
  readonly afterId?: number | undefined;
}

export interface Page<T> {
  readonly items: T[];
  readonly hasMore: boolean;
  /** Id of the last item returned, when there is more. */
  readonly lastId: number | undefined;
}

export interface PageMeta {
  readonly count: number;
  readonly current_page: number;
  readonly per: number;
  readonly has_more: boolean;
  readonly next_cursor: string | null;
}

export function encodeCursor(afterId: number): string {
  return Buffer.from(JSON.stringify({ after: afterId })).toString("base64url");
}

/** The id a cursor stands for, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): number | undefined {
  let after: unknown;
  try {
    ({ after } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { after?: unknown });
  } catch {
    // Not JSON, or JSON null: not a cursor.
  }
  // Number.isSafeInteger is false for anything that is not a number.
  return Number.isSafeInteger(after) && (after as number) >= 0 ? (after as number) : undefined;
}

/** How many items to skip for `page` (a cursor replaces the page offset). */
export function skipFor(req: PageRequest): number {
  return req.afterId !== undefined ? 0 : (req.page - 1) * req.per;
}

export function pageMeta<T>(count: number, req: PageRequest, page: Page<T>): PageMeta {
  return {
    count,
    current_page: req.page,
    per: req.per,
    has_more: page.hasMore,
    next_cursor: page.hasMore && page.lastId !== undefined ? encodeCursor(page.lastId) : null,
  };
}

/** One page of a list with its paging meta (and, for some lists, counters beside it). */
export interface Listing<T, M = PageMeta> {
  readonly meta: M;
  readonly items: T[];
}

/** Slices an in-memory, already ordered list (search results). */
export function slicePage<T extends { id: number }>(all: readonly T[], req: PageRequest): Page<T> {
  const start = req.afterId !== undefined ? all.findIndex((x) => x.id === req.afterId) + 1 : skipFor(req);
  const items = all.slice(start, start + req.per);
  const hasMore = start + req.per < all.length;
  return { items, hasMore, lastId: items.at(-1)?.id };
}
