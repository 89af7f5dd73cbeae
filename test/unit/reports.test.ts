import { describe, expect, it } from "vitest";
import { MAX_UNIX_SECONDS } from "../../shared/clock.ts";
import { bucketStart, dayOf, MAX_RANGE_SECONDS, report, type DayRow, type ReportStore } from "../../shared/domain/reports.ts";

const T = (iso: string) => Date.parse(iso) / 1000;

/** The domain's port, in memory. */
function store(rows: Record<string, DayRow[]>): ReportStore {
  return {
    async readDays(_a, scope, from, to) {
      return (rows[scope] ?? []).filter((r) => r.day >= from && r.day <= to);
    },
    async inboxExists(_a, id) {
      return id === 1;
    },
  };
}

describe("report buckets", () => {
  it("starts days at UTC midnight, weeks on Monday, months on the 1st", () => {
    const ts = T("2026-03-05T15:30:00Z"); // a Thursday
    expect(dayOf(ts)).toBe("2026-03-05");
    expect(bucketStart(ts, "day")).toBe(T("2026-03-05T00:00:00Z"));
    expect(bucketStart(ts, "week")).toBe(T("2026-03-02T00:00:00Z"));
    expect(bucketStart(T("2026-03-01T10:00:00Z"), "week")).toBe(T("2026-02-23T00:00:00Z"));
    expect(bucketStart(ts, "month")).toBe(T("2026-03-01T00:00:00Z"));
  });

  it("sums counts per bucket and averages times with their count", async () => {
    const s = store({
      account: [
        { day: "2026-01-30", fields: { conversations_count: 2, first_response_sum: 100, first_response_count: 2 } },
        { day: "2026-02-02", fields: { conversations_count: 3, first_response_sum: 30, first_response_count: 1 } },
      ],
    });
    const q = { type: "account" as const, since: T("2026-01-30T00:00:00Z"), until: T("2026-02-03T00:00:00Z"), group_by: "month" as const };
    await expect(report(s, 1, { ...q, metric: "conversations_count" })).resolves.toEqual([
      { value: 2, timestamp: T("2026-01-01T00:00:00Z") },
      { value: 3, timestamp: T("2026-02-01T00:00:00Z") },
    ]);
    await expect(report(s, 1, { ...q, metric: "avg_first_response_time", group_by: "week" })).resolves.toEqual([
      { value: 50, timestamp: T("2026-01-26T00:00:00Z"), count: 2 },
      { value: 30, timestamp: T("2026-02-02T00:00:00Z"), count: 1 },
    ]);
  });

  it("counts the day of `until` and ignores rows outside the range a store may return", async () => {
    const rows = [
      { day: "2026-03-01", fields: { conversations_count: 100 } },
      { day: "2026-03-02", fields: { conversations_count: 1 } },
      { day: "2026-03-04", fields: { conversations_count: 4 } },
      { day: "2026-03-09", fields: { conversations_count: 100 } },
    ];
    const loose: ReportStore = { readDays: async () => rows, inboxExists: async () => true };
    const q = { metric: "conversations_count" as const, type: "account" as const, since: T("2026-03-02T00:00:00Z"), until: T("2026-03-04T00:00:00Z"), group_by: "day" as const };
    await expect(report(loose, 1, q)).resolves.toEqual([
      { value: 1, timestamp: T("2026-03-02T00:00:00Z") },
      { value: 0, timestamp: T("2026-03-03T00:00:00Z") },
      { value: 4, timestamp: T("2026-03-04T00:00:00Z") },
    ]);
  });

  it("answers a range of one instant and one of exactly the longest span", async () => {
    const s = store({});
    const at = T("2026-03-04T00:00:00Z");
    await expect(report(s, 1, { metric: "conversations_count", type: "account", since: at, until: at, group_by: "day" })).resolves.toEqual([{ value: 0, timestamp: at }]);
    const longest = await report(s, 1, { metric: "conversations_count", type: "account", since: at - MAX_RANGE_SECONDS, until: at, group_by: "month" });
    expect(MAX_RANGE_SECONDS).toBe(1827 * 86400);
    expect(longest[0]!.timestamp).toBe(T("2021-03-01T00:00:00Z"));
    expect(longest.at(-1)!.timestamp).toBe(T("2026-03-01T00:00:00Z"));
    expect(longest).toHaveLength(61);
  });

  it("names the field and the rule of each refused query", async () => {
    const s = store({});
    const base = { metric: "conversations_count" as const, group_by: "day" as const };
    const refused = (q: Parameters<typeof report>[2]) => report(s, 1, q).then(
      () => undefined,
      (err: { status: number; errors: unknown }) => ({ status: err.status, errors: err.errors }),
    );
    expect(await refused({ ...base, type: "account", since: 10, until: 5 })).toEqual({ status: 422, errors: [{ field: "until", code: "invalid", message: "must be after since" }] });
    expect(await refused({ ...base, type: "account", since: 0, until: MAX_RANGE_SECONDS + 1 })).toEqual({
      status: 422,
      errors: [{ field: "until", code: "too_big", message: "range is longer than 5 years" }],
    });
    expect(await refused({ ...base, type: "inbox", since: 0, until: 5 })).toEqual({ status: 422, errors: [{ field: "id", code: "blank", message: "can't be blank" }] });
    expect(await refused({ ...base, type: "inbox", id: 2, since: 0, until: 5 })).toEqual({ status: 422, errors: [{ field: "id", code: "invalid", message: "is not an inbox of this account" }] });
    await expect(report(s, 1, { ...base, type: "inbox", id: 1, since: 0, until: 5 })).resolves.toEqual([{ value: 0, timestamp: 0 }]);
    // Milliseconds sent for seconds: named, whichever field carries them; the last second of 9999 is served.
    const ms = T("2026-03-04T00:00:00Z") * 1000;
    const msError = (field: string) => ({ status: 422, errors: [{ field, code: "too_big", message: "is after the year 9999 (unix seconds, not milliseconds)" }] });
    expect(await refused({ ...base, type: "account", since: ms, until: ms + 86_400_000 })).toEqual(msError("since"));
    expect(await refused({ ...base, type: "account", until: ms })).toEqual(msError("until"));
    expect(await refused({ ...base, type: "account", since: MAX_UNIX_SECONDS + 1 })).toEqual(msError("since"));
    const last = await report(s, 1, { ...base, type: "account", since: MAX_UNIX_SECONDS, until: MAX_UNIX_SECONDS });
    expect(last).toEqual([{ value: 0, timestamp: T("9999-12-31T00:00:00Z") }]);
  });

  it("rejects reversed ranges and unknown inboxes", async () => {
    const s = store({});
    await expect(report(s, 1, { metric: "conversations_count", type: "account", since: 10, until: 5, group_by: "day" })).rejects.toMatchObject({ status: 422 });
    await expect(report(s, 1, { metric: "conversations_count", type: "inbox", id: 2, since: 0, until: 5, group_by: "day" })).rejects.toMatchObject({ status: 422 });
  });
});
