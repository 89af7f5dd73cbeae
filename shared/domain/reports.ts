/**
 * Reports (the v2 reports route): per-day counters per account and per inbox, written in the same
 * transaction as the change they count, read back and grouped by day, week (ISO, Monday) or
 * month. Days are UTC.
 */
import { ValidationError } from "../errors.ts";
import { MAX_UNIX_SECONDS } from "../clock.ts";

export const REPORT_FIELDS = [
  "conversations_count",
  "incoming_messages_count",
  "outgoing_messages_count",
  "resolutions_count",
  "first_response_sum",
  "first_response_count",
  "resolution_sum",
  "resolution_count",
] as const;
export type ReportField = (typeof REPORT_FIELDS)[number];

/** One increment of the day counters of an inbox (and of its account). */
export interface ReportIncrement {
  readonly day: string;
  readonly inboxId: number;
  readonly fields: Partial<Record<ReportField, number>>;
}

export const COUNT_METRICS = ["conversations_count", "incoming_messages_count", "outgoing_messages_count", "resolutions_count"] as const;
export const AVG_METRICS = ["avg_first_response_time", "avg_resolution_time"] as const;
export type Metric = (typeof COUNT_METRICS)[number] | (typeof AVG_METRICS)[number];
export type GroupBy = "day" | "week" | "month";

export function dayOf(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

const DAY = 86_400;
function dayStart(ts: number): number {
  return Math.floor(ts / DAY) * DAY;
}

/** Start (unix seconds, UTC) of the bucket holding `ts`. */
export function bucketStart(ts: number, groupBy: GroupBy): number {
  const d0 = dayStart(ts);
  if (groupBy === "day") return d0;
  const d = new Date(d0 * 1000);
  if (groupBy === "week") return d0 - ((d.getUTCDay() + 6) % 7) * DAY;
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
}

function nextBucket(start: number, groupBy: GroupBy): number {
  if (groupBy === "day") return start + DAY;
  if (groupBy === "week") return start + 7 * DAY;
  const d = new Date(start * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}

export interface DayRow {
  readonly day: string;
  readonly fields: Partial<Record<ReportField, number>>;
}

export interface ReportStore {
  /** Day rows of the scope ("account" or "inbox#<id>") between two days, inclusive, in no particular order. */
  readDays(accountId: number, scope: string, fromDay: string, toDay: string): Promise<DayRow[]>;
  inboxExists(accountId: number, inboxId: number): Promise<boolean>;
}

export interface ReportQuery {
  readonly metric: Metric;
  readonly type: "account" | "inbox";
  readonly id?: number | undefined;
  /** Unix seconds; default: 30 days before `until`. */
  readonly since?: number | undefined;
  /** Unix seconds; default: now. */
  readonly until?: number | undefined;
  readonly group_by: GroupBy;
}

/** The window when the client gives none: the last 30 days up to now. */
export const DEFAULT_RANGE_SECONDS = 30 * DAY;

export type ReportPoint = { value: number; timestamp: number; count?: number };

/** Longest range served: 5 years (of 365 days, and the 2 leap days 5 years can hold), ~1,800 day items. */
export const MAX_RANGE_SECONDS = (5 * 365 + 2) * DAY;

export async function report(store: ReportStore, accountId: number, query: ReportQuery, now: Date = new Date()): Promise<ReportPoint[]> {
  for (const field of ["since", "until"] as const) {
    if ((query[field] ?? 0) > MAX_UNIX_SECONDS) throw ValidationError.field(field, "too_big", "is after the year 9999 (unix seconds, not milliseconds)");
  }
  const until = query.until ?? Math.floor(now.getTime() / 1000);
  const q = { ...query, until, since: query.since ?? until - DEFAULT_RANGE_SECONDS };
  if (q.until < q.since) throw ValidationError.field("until", "invalid", "must be after since");
  if (q.until - q.since > MAX_RANGE_SECONDS) throw ValidationError.field("until", "too_big", "range is longer than 5 years");
  let scope = "account";
  if (q.type === "inbox") {
    if (q.id === undefined) throw ValidationError.field("id", "blank", "can't be blank");
    if (!(await store.inboxExists(accountId, q.id))) throw ValidationError.field("id", "invalid", "is not an inbox of this account");
    scope = `inbox#${q.id}`;
  }
  const rows = await store.readDays(accountId, scope, dayOf(q.since), dayOf(q.until));
  const buckets = new Map<number, { sum: number; count: number }>();
  for (let b = bucketStart(q.since, q.group_by); b <= q.until; b = nextBucket(b, q.group_by)) buckets.set(b, { sum: 0, count: 0 });
  const avg = q.metric === "avg_first_response_time" ? "first_response" : q.metric === "avg_resolution_time" ? "resolution" : undefined;
  for (const row of rows) {
    const b = buckets.get(bucketStart(Date.parse(`${row.day}T00:00:00Z`) / 1000, q.group_by));
    if (!b) continue;
    if (avg) {
      b.sum += row.fields[`${avg}_sum`] ?? 0;
      b.count += row.fields[`${avg}_count`] ?? 0;
    } else b.sum += row.fields[q.metric as ReportField] ?? 0;
  }
  return [...buckets].map(([timestamp, { sum, count }]) =>
    avg ? { value: count ? Math.round((sum / count) * 100) / 100 : 0, timestamp, count } : { value: sum, timestamp },
  );
}
