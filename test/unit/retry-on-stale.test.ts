import { describe, expect, it } from "vitest";
import { retryOnStale } from "../../shared/domain/retry.ts";
import { NotFound, Stale } from "../../shared/errors.ts";

describe("retryOnStale", () => {
  it("runs the update again while it loses its race, and answers what the winning attempt gives", async () => {
    let calls = 0;

    const out = await retryOnStale(async () => {
      calls++;
      if (calls < 4) throw new Stale();
      return "written";
    }, { baseMs: 1, capMs: 2 });

    expect([out, calls]).toEqual(["written", 4]);
  });

  it("past the last attempt the client gets 409 stale with Retry-After: 1", async () => {
    let calls = 0;

    const p = retryOnStale(async () => {
      calls++;
      throw new Stale();
    }, { attempts: 3, baseMs: 1, capMs: 2 });

    await expect(p).rejects.toMatchObject({ status: 409, code: "stale", headers: { "retry-after": "1" } });
    expect(calls).toBe(3);
  });

  it("never retries another error", async () => {
    let calls = 0;

    const p = retryOnStale(async () => {
      calls++;
      throw new NotFound();
    });

    await expect(p).rejects.toBeInstanceOf(NotFound);
    expect(calls).toBe(1);
  });
});
