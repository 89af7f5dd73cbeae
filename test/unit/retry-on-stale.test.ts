import { describe, expect, it } from "vitest";
import { retryOnStale, STALE_ATTEMPTS, withDeadline } from "../../shared/domain/retry.ts";
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

  it("inside a request, keeps trying past the attempt count while the request has time", async () => {
    let calls = 0;

    const out = await withDeadline(Date.now() + 5_000, () =>
      retryOnStale(async () => {
        calls++;
        if (calls <= STALE_ATTEMPTS + 5) throw new Stale();
        return "written";
      }, { baseMs: 1, capMs: 2 }),
    );

    expect([out, calls]).toEqual(["written", STALE_ATTEMPTS + 6]);
  });

  it("starts no attempt that would end past the deadline: 409 stale in time for the reply", async () => {
    let calls = 0;
    const started = Date.now();

    const p = withDeadline(started + 300, () =>
      retryOnStale(async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 40));
        throw new Stale();
      }, { baseMs: 1, capMs: 5 }),
    );

    await expect(p).rejects.toMatchObject({ status: 409, code: "stale" });
    expect(Date.now() - started).toBeLessThan(300 + 40);
    expect(calls).toBeGreaterThan(2);
  });

  it("a deadline holds only inside its own request", async () => {
    let calls = 0;
    await withDeadline(Date.now() + 60_000, async () => undefined);

    const p = retryOnStale(async () => {
      calls++;
      throw new Stale();
    }, { baseMs: 1, capMs: 2 });

    await expect(p).rejects.toBeInstanceOf(Stale);
    expect(calls).toBe(STALE_ATTEMPTS);
  });
});
