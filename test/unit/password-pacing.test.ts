/**
 * POST /auth/password answers after the same floor, known e-mail or not (a fake clock: the
 * store and the mailer "take time" by advancing it; sleeping advances it too).
 */
import { describe, expect, it } from "vitest";
import type { Mailer, MailMessage } from "../../shared/domain/mail.ts";
import { requestPasswordReset, type ResetStore } from "../../shared/domain/password-reset.ts";

function world(costs: { lookupMs: number; saveMs: number; mailMs: number }) {
  let now = 1_000_000;
  const sent: MailMessage[] = [];
  const slept: number[] = [];
  const store = {
    async findUserByEmail(email: string) {
      now += costs.lookupMs;
      return email === "known@example.com" ? { id: 1, name: "Known", email, pwVersion: 0 } : undefined;
    },
    async saveResetToken() {
      now += costs.saveMs;
    },
  } as unknown as ResetStore;
  const mailer: Mailer = {
    async send(m) {
      now += costs.mailMs;
      sent.push(m);
    },
  };
  const pacing = {
    minReplyMs: 500,
    nowMs: () => now,
    sleep: async (ms: number) => {
      slept.push(ms);
      now += ms;
    },
  };
  const deps = { store, mailer, resetUrl: "https://app.test/reset", pacing };
  const timed = async (email: string) => {
    const start = now;
    const reply = await requestPasswordReset(deps, email, new Date(0));
    return { reply, elapsed: now - start };
  };
  return { timed, sent, slept };
}

describe("requestPasswordReset pacing", () => {
  it("answers a known and an unknown e-mail after the same time, with the same reply", async () => {
    const w = world({ lookupMs: 10, saveMs: 20, mailMs: 150 });

    const known = await w.timed("known@example.com");
    const unknown = await w.timed("ghost@example.com");

    expect(w.sent).toHaveLength(1);
    expect(known.reply).toEqual(unknown.reply);
    expect(known.elapsed).toBe(500);
    expect(unknown.elapsed).toBe(500);
    expect(w.slept).toEqual([320, 490]);
  });

  it("does not sleep when the work already took longer than the floor", async () => {
    const w = world({ lookupMs: 10, saveMs: 20, mailMs: 900 });

    const known = await w.timed("known@example.com");

    expect(known.elapsed).toBe(930);
    expect(w.slept).toEqual([]);
  });
});
