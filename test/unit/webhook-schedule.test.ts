import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_SCHEDULE, deliveryMaxReceiveCount, maxAttempts, nextRetry, parseRetryAfter, parseSchedule } from "../../shared/delivery/schedule.ts";

describe("retry schedule", () => {
  it("defaults to the documented 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts", () => {
    expect(parseSchedule(undefined)).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(maxAttempts(DEFAULT_RETRY_SCHEDULE)).toBe(8);
  });

  it("parses an override and rejects bad ones", () => {
    expect(parseSchedule("1, 2,3")).toEqual([1, 2, 3]);
    expect(() => parseSchedule("1,x")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseSchedule("1,,2")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseSchedule("-1")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseSchedule("50000")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });

  it("gives the step after each failed attempt, then gives up", () => {
    const s = DEFAULT_RETRY_SCHEDULE;
    expect(nextRetry(s, 1)).toEqual({ retry: true, delaySeconds: 5 });
    expect(nextRetry(s, 2)).toEqual({ retry: true, delaySeconds: 300 });
    expect(nextRetry(s, 7)).toEqual({ retry: true, delaySeconds: 36000 });
    expect(nextRetry(s, 8)).toEqual({ retry: false });
  });

  it("honours Retry-After up to the next step, never sooner than the schedule's step", () => {
    const s = DEFAULT_RETRY_SCHEDULE; // 5, 300, 1800, ...
    expect(nextRetry(s, 1, 60)).toEqual({ retry: true, delaySeconds: 60 });
    expect(nextRetry(s, 1, 3600)).toEqual({ retry: true, delaySeconds: 300 });
    expect(nextRetry(s, 1, 300)).toEqual({ retry: true, delaySeconds: 300 });
    expect(nextRetry(s, 2, 1)).toEqual({ retry: true, delaySeconds: 300 });
    expect(nextRetry(s, 2, 1000)).toEqual({ retry: true, delaySeconds: 1000 });
    // The last step has no next one: its own delay is the ceiling.
    expect(nextRetry(s, 7, 99_999)).toEqual({ retry: true, delaySeconds: 36000 });
    // A schedule that shortens: never less than the step.
    expect(nextRetry([60, 10], 1, 1)).toEqual({ retry: true, delaySeconds: 60 });
    expect(nextRetry([60, 10], 1, 500)).toEqual({ retry: true, delaySeconds: 60 });
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it("an empty override keeps the default; 0 is one retry, at once", () => {
    expect(parseSchedule("")).toBe(DEFAULT_RETRY_SCHEDULE);
    expect(parseSchedule("   ")).toBe(DEFAULT_RETRY_SCHEDULE);
    expect(parseSchedule("0")).toEqual([0]);
    expect(maxAttempts(parseSchedule("0"))).toBe(2);
    expect(nextRetry(parseSchedule("0"), 1)).toEqual({ retry: true, delaySeconds: 0 });
    expect(nextRetry(parseSchedule("0"), 2)).toEqual({ retry: false });
    expect(parseSchedule("43200")).toEqual([43200]);
    expect(() => parseSchedule(",")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseSchedule("1, ,2")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(deliveryMaxReceiveCount(DEFAULT_RETRY_SCHEDULE)).toBe(31);
    expect(deliveryMaxReceiveCount([0])).toBe(25);
    expect(() => parseSchedule("1.5")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseSchedule("43201")).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });

  it("a Retry-After of 0, negative or past waits the schedule's step", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(nextRetry(DEFAULT_RETRY_SCHEDULE, 3, 0)).toEqual({ retry: true, delaySeconds: 1800 });
    expect(nextRetry(DEFAULT_RETRY_SCHEDULE, 3, -10)).toEqual({ retry: true, delaySeconds: 1800 });
    for (const bad of ["-5", "-1", "+5", "1.5", "5s", " "]) expect(parseRetryAfter(bad, now), bad).toBeUndefined();
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("Thursday, 01-Jan-26 00:00:10 GMT", now)).toBe(10);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:00 GMT", now + 1)).toBe(0);
    expect(parseRetryAfter(" 7 ", now)).toBe(7);
  });
});
