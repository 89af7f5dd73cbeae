import { describe, expect, it } from "vitest";
import { decodeCursor, DEFAULT_PER, encodeCursor, MAX_PER, pageMeta, skipFor, slicePage } from "../../shared/domain/paging.ts";

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: (i + 1) * 10 }));

describe("paging", () => {
  it("defaults to 25 per page, at most 100", () => {
    expect([DEFAULT_PER, MAX_PER]).toEqual([25, 100]);
  });

  it("a cursor round-trips its id; anything else is not a cursor", () => {
    expect(decodeCursor(encodeCursor(0))).toBe(0);
    expect(decodeCursor(encodeCursor(42))).toBe(42);
    for (const bad of ["", "x", Buffer.from('{"after":-1}').toString("base64url"), Buffer.from('{"after":1.5}').toString("base64url"),
      Buffer.from('{"after":"3"}').toString("base64url"), Buffer.from('{"after":9007199254740992}').toString("base64url"), Buffer.from("null").toString("base64url")]) {
      expect(decodeCursor(bad), bad).toBeUndefined();
    }
  });

  it("skips (page - 1) * per, or nothing after a cursor", () => {
    expect(skipFor({ page: 1, per: 5 })).toBe(0);
    expect(skipFor({ page: 3, per: 5 })).toBe(10);
    expect(skipFor({ page: 3, per: 5, afterId: 7 })).toBe(0);
  });

  it("page 2 with per >= 2 holds the items after page 1, and the last page says has_more:false", () => {
    const all = items(5);

    const p1 = slicePage(all, { page: 1, per: 2 });
    const p2 = slicePage(all, { page: 2, per: 2 });
    const p3 = slicePage(all, { page: 3, per: 2 });

    expect(p1).toEqual({ items: [{ id: 10 }, { id: 20 }], hasMore: true, lastId: 20 });
    expect(p2).toEqual({ items: [{ id: 30 }, { id: 40 }], hasMore: true, lastId: 40 });
    expect(p3).toEqual({ items: [{ id: 50 }], hasMore: false, lastId: 50 });
    expect(slicePage(all, { page: 4, per: 2 })).toEqual({ items: [], hasMore: false, lastId: undefined });
  });

  it("a page that ends exactly at the last item has no more", () => {
    expect(slicePage(items(4), { page: 2, per: 2 }).hasMore).toBe(false);
    expect(slicePage(items(4), { page: 1, per: 4 }).hasMore).toBe(false);
    expect(slicePage(items(4), { page: 1, per: 3 }).hasMore).toBe(true);
  });

  it("a cursor continues after its id, whatever the page", () => {
    const all = items(5);

    const next = slicePage(all, { page: 9, per: 2, afterId: 20 });

    expect(next).toEqual({ items: [{ id: 30 }, { id: 40 }], hasMore: true, lastId: 40 });
    expect(slicePage(all, { page: 1, per: 2, afterId: 40 })).toEqual({ items: [{ id: 50 }], hasMore: false, lastId: 50 });
  });

  it("meta: next_cursor only when there is more, pointing after the last item", () => {
    const all = items(5);
    const req = { page: 2, per: 2 };

    const more = pageMeta(5, req, slicePage(all, req));
    const last = pageMeta(5, { page: 3, per: 2 }, slicePage(all, { page: 3, per: 2 }));

    expect(more).toEqual({ count: 5, current_page: 2, per: 2, has_more: true, next_cursor: encodeCursor(40) });
    expect(slicePage(all, { page: 1, per: 2, afterId: decodeCursor(more.next_cursor!) }).items).toEqual([{ id: 50 }]);
    expect(last).toEqual({ count: 5, current_page: 3, per: 2, has_more: false, next_cursor: null });
    expect(pageMeta(5, req, { items: [], hasMore: true, lastId: undefined }).next_cursor).toBeNull();
  });
});
