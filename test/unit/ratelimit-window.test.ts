/** The limiter's window math: aligned fixed windows, sliding slices, exact Retry-After. */
import { describe, expect, it } from "vitest";
import {
  fixedWindow,
  secondsUntil,
  sliceIndex,
  slidingCount,
  slidingExpiresAt,
  slidingReopensAt,
  slidingResetAt,
  type SlidingSpec,
} from "../../shared/ratelimit/window.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0); // a whole hour: every window length here divides it
const at = (s: number) => T0 + s * 1000;
const epoch = (s: number) => T0 / 1000 + s;

describe("fixed windows", () => {
  it("are aligned to multiples of their length, whatever the first request", () => {
    expect(fixedWindow(at(0), 60)).toEqual({ start: epoch(0), end: epoch(60) });
    expect(fixedWindow(at(59.999), 60)).toEqual({ start: epoch(0), end: epoch(60) });
    expect(fixedWindow(at(60), 60)).toEqual({ start: epoch(60), end: epoch(120) });
    expect(fixedWindow(at(3599), 3600)).toEqual({ start: epoch(0), end: epoch(3600) });
  });

  it("gives the whole seconds to the window end as Retry-After, never 0", () => {
    expect(secondsUntil(at(17.2), epoch(60))).toBe(43);
    expect(secondsUntil(at(17), epoch(60))).toBe(43);
    expect(secondsUntil(at(59.9), epoch(60))).toBe(1);
    expect(secondsUntil(at(60), epoch(60))).toBe(1);
  });
});

describe("sliding windows", () => {
  const spec: SlidingSpec = { windowSeconds: 300, slices: 10 }; // 30 s slices
  const counts = (entries: [number, number][]) => new Map(entries.map(([s, n]) => [sliceIndex(at(s), spec), n]));

  it("counts the current slice and the `slices` before it, ignoring older ones", () => {
    const c = counts([[0, 2], [30, 1], [299, 3]]);
    expect(slidingCount(c, sliceIndex(at(299), spec), spec)).toBe(6);
    // at 330 the slice [0,30) is 11 slices back: no longer counted.
    expect(slidingCount(c, sliceIndex(at(330), spec), spec)).toBe(4);
    expect(slidingCount(c, sliceIndex(at(630), spec), spec)).toBe(0);
  });

  it("reopens at the first slice boundary where one more request fits", () => {
    const c = counts([[0, 3], [200, 2]]); // limit 5 reached
    const now = sliceIndex(at(250), spec);
    expect(slidingReopensAt(c, now, spec, 5)).toBe(epoch(330)); // the 3 of [0,30) leave at 330
    expect(slidingReopensAt(c, now, spec, 6)).toBe(epoch(270)); // room already: next boundary
    expect(slidingResetAt(c, now, spec)).toBe(epoch(330));
    expect(slidingExpiresAt(now, spec)).toBe(epoch(240 + 330));
  });

  it("never lets more than `limit` through in any window-long interval (simulation)", () => {
    const limit = 5;
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const c = new Map<number, number>();
    const passed: number[] = [];
    let t = 0;
    for (let i = 0; i < 3000; i++) {
      t += rnd() < 0.15 ? rnd() * 700 : rnd() * 3; // bursts and pauses (blocked senders stay blocked)
      const slice = sliceIndex(at(t), spec);
      c.set(slice, (c.get(slice) ?? 0) + 1); // denied requests count too
      if (slidingCount(c, slice, spec) <= limit) passed.push(t);
    }
    expect(passed.length).toBeGreaterThan(limit);
    for (let i = limit; i < passed.length; i++) {
      expect(passed[i]! - passed[i - limit]!).toBeGreaterThanOrEqual(spec.windowSeconds);
    }
  });

  it("a request at Retry-After passes and one a second earlier would not", () => {
    const limit = 5;
    const c = new Map<number, number>();
    const hit = (s: number) => {
      const slice = sliceIndex(at(s), spec);
      c.set(slice, (c.get(slice) ?? 0) + 1);
      return slidingCount(c, slice, spec) <= limit;
    };
    for (let i = 0; i < 5; i++) expect(hit(100 + i)).toBe(true);
    expect(hit(200)).toBe(false);
    const retry = secondsUntil(at(200), slidingReopensAt(c, sliceIndex(at(200), spec), spec, limit));
    expect(retry).toBe(420 - 200); // slice [90,120) leaves the count at 420
    const probe = new Map(c);
    const slice = sliceIndex(at(200 + retry - 1), spec);
    probe.set(slice, (probe.get(slice) ?? 0) + 1);
    expect(slidingCount(probe, slice, spec)).toBeGreaterThan(limit);
    expect(hit(200 + retry)).toBe(true);
  });
});

describe("sliding edges (mutation-tested)", () => {
  const spec: SlidingSpec = { windowSeconds: 600, slices: 10 }; // 60-s slices
  const c = 100; // current slice

  it("reopens exactly when the slice that keeps it full leaves the count, or after the span", () => {
    // One slice before the current one holds 5; the current one 3: full (limit 5) until slice c-1 leaves at c+10.
    expect(slidingReopensAt(new Map([[c - 1, 5], [c, 3]]), c, spec, 5)).toBe((c + spec.slices) * 60);
    // The current slice alone is full: nothing reopens before it leaves, one slice after the span.
    expect(slidingReopensAt(new Map([[c, 5]]), c, spec, 5)).toBe((c + spec.slices + 1) * 60);
    expect(slidingReopensAt(new Map([[c, 9]]), c, spec, 5)).toBe((c + spec.slices + 1) * 60);
  });

  it("never asks a client to wait past the span, even when a later slice (a container whose clock runs ahead) is full", () => {
    // Slice c+12 holds 9 (limit 5) and is counted at every boundary up to c+22: Retry-After still stops at c+11.
    expect(slidingCount(new Map([[c + 12, 9]]), c + 11, spec)).toBe(9);
    expect(slidingReopensAt(new Map([[c + 12, 9]]), c, spec, 5)).toBe((c + spec.slices + 1) * 60);
    expect(slidingReopensAt(new Map([[c - 3, 5], [c + 12, 9]]), c, spec, 5)).toBe((c + spec.slices + 1) * 60);
    // A later slice with room left does not hold anything back.
    expect(slidingReopensAt(new Map([[c - 3, 5], [c + 1, 2]]), c, spec, 7)).toBe((c - 3 + spec.slices + 1) * 60);
  });

  it("resets when the oldest counted slice holding requests leaves; empty, older and later slices do not count", () => {
    const from = c - spec.slices;
    expect(slidingResetAt(new Map([[from, 2], [c, 1]]), c, spec)).toBe((from + spec.slices + 1) * 60);
    expect(slidingResetAt(new Map([[from - 1, 7], [from + 1, 2]]), c, spec)).toBe((from + 1 + spec.slices + 1) * 60);
    expect(slidingResetAt(new Map([[from, 0], [from + 3, 1]]), c, spec)).toBe((from + 3 + spec.slices + 1) * 60);
    expect(slidingResetAt(new Map([[c + 2, 4]]), c, spec)).toBe((c + spec.slices + 1) * 60);
    expect(slidingResetAt(new Map([[c - 2, 1], [c - 5, 1]]), c, spec)).toBe((c - 5 + spec.slices + 1) * 60);
    expect(slidingResetAt(new Map(), c, spec)).toBe((c + spec.slices + 1) * 60);
  });
});
