/**
 * Password recovery.
 *
 * `POST /auth/password`: always the same reply. For a known e-mail a reset token (256 random
 * bits, stored as its SHA-256, one hour of life checked at read time) is stored and mailed as a
 * link through the `Mailer` port.
 *
 * `PUT /auth/password`: the token, a new password and its confirmation. Success sets the new
 * scrypt hash, deletes the token, bumps the user's `pwVersion` (every other outstanding reset
 * token of that user dies with it, and no login that checked the old password can still get a
 * key) and revokes every existing API key of the user.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ValidationError } from "../errors.ts";
import type { Mailer, MailMessage } from "./mail.ts";
import { hashPassword } from "./passwords.ts";
import { randomToken, sha256Hex } from "./secrets.ts";
import { normalizeEmail, type CredentialUser } from "./sign-in.ts";

export const RESET_TOKEN_TTL_SECONDS = 3600;

export const RESET_REQUESTED_MESSAGE =
  "You will receive an email with instructions on how to reset your password in a few minutes.";
export const RESET_DONE_MESSAGE = "Your password has been changed successfully.";

export interface ResetTokenRecord {
  readonly userId: number;
  /** The user's `pwVersion` when the token was issued. */
  readonly pwVersion: number;
  readonly createdAt: number;
  readonly expiresAt: number;
}

export interface ResetStore {
  findUserByEmail(email: string): Promise<CredentialUser | undefined>;
  getUser(userId: number): Promise<CredentialUser | undefined>;
  saveResetToken(hash: string, record: ResetTokenRecord): Promise<void>;
  findResetToken(hash: string): Promise<ResetTokenRecord | undefined>;
  /**
   * One transaction: the new hash and `pwVersion + 1` on the user (if still at `fromVersion`) and
   * the token's deletion (if it still exists and has not expired). False when a condition failed.
   */
  commitReset(args: { userId: number; tokenHash: string; fromVersion: number; passwordHash: string; nowSec: number }): Promise<boolean>;
  /** Deletes every API key of the user (both items each, in transactions of at most 100 items). */
  revokeAllKeys(userId: number): Promise<number>;
}

/** Evens out reply times: a request answers no sooner than `minReplyMs` after it started. */
export interface Pacing {
  readonly minReplyMs: number;
  readonly nowMs?: () => number;
  readonly sleep?: (ms: number) => Promise<unknown>;
}

export interface ResetDeps {
  readonly store: ResetStore;
  readonly mailer: Mailer;
  /** The page the mailed link points to (PASSWORD_RESET_URL). */
  readonly resetUrl: string;
  /**
   * A known e-mail costs a token write and a mail; an unknown one nothing. Both answer after the
   * same floor (PASSWORD_RESET_MIN_REPLY_MS), so the reply time does not tell them apart either
   * (as long as the known path fits in the floor).
   */
  readonly pacing?: Pacing;
}

export function resetLink(resetUrl: string, token: string): string {
  const url = new URL(resetUrl);
  url.searchParams.set("reset_password_token", token);
  return url.toString();
}

export function resetMail(to: string, name: string, link: string): MailMessage {
  return {
    to,
    subject: "Reset password instructions",
    text: [
      `Hello ${name},`,
      "",
      "Someone has requested a link to change your password. You can do this through the link below.",
      "",
      link,
      "",
      "The link works once, for one hour. If you didn't request this, please ignore this email:",
      "your password won't change until you open the link above and create a new one.",
      "",
    ].join("\r\n"),
  };
}

export async function requestPasswordReset(deps: ResetDeps, email: string, now: Date): Promise<string> {
  const clock = deps.pacing?.nowMs ?? Date.now;
  const started = clock();
  await sendResetIfKnown(deps, email, now);
  if (deps.pacing) {
    const left = started + deps.pacing.minReplyMs - clock();
    if (left > 0) await (deps.pacing.sleep ?? sleep)(left);
  }
  return RESET_REQUESTED_MESSAGE;
}

async function sendResetIfKnown(deps: ResetDeps, email: string, now: Date): Promise<void> {
  const user = await deps.store.findUserByEmail(normalizeEmail(email));
  if (user) {
    const token = randomToken(32);
    const nowSec = Math.floor(now.getTime() / 1000);
    await deps.store.saveResetToken(sha256Hex(token), {
      userId: user.id,
      pwVersion: user.pwVersion,
      createdAt: nowSec,
      expiresAt: nowSec + RESET_TOKEN_TTL_SECONDS,
    });
    // A mail failure must not change the reply (that would tell which e-mails exist);
    // the adapter logs it, and the user can ask again.
    await deps.mailer.send(resetMail(user.email, user.name, resetLink(deps.resetUrl, token))).catch(() => undefined);
  }
}

export interface ResetInput {
  readonly reset_password_token: string;
  readonly password: string;
  readonly password_confirmation: string;
}

const invalidToken = () => ValidationError.field("reset_password_token", "invalid", "is invalid");
const expiredToken = () => ValidationError.field("reset_password_token", "expired", "has expired, please request a new one");

export async function resetPassword(store: ResetStore, input: ResetInput, now: Date): Promise<string> {
  if (input.password !== input.password_confirmation) {
    throw ValidationError.field("password_confirmation", "confirmation", "doesn't match Password");
  }
  const nowSec = Math.floor(now.getTime() / 1000);
  const tokenHash = sha256Hex(input.reset_password_token);
  const token = await store.findResetToken(tokenHash);
  if (!token) throw invalidToken();
  if (token.expiresAt <= nowSec) throw expiredToken();
  const user = await store.getUser(token.userId);
  // Issued before a later reset: that reset already used up every older token.
  if (!user || user.pwVersion !== token.pwVersion) throw invalidToken();

  const passwordHash = await hashPassword(input.password);
  // Before and after the commit: a crash in between still leaves no old key working, and the
  // second pass catches a key issued by a login that raced the first (sign-in issues keys only
  // while `pwVersion` is unchanged, so none can appear after the commit).
  await store.revokeAllKeys(user.id);
  const committed = await store.commitReset({ userId: user.id, tokenHash, fromVersion: user.pwVersion, passwordHash, nowSec });
  if (!committed) throw invalidToken();
  await store.revokeAllKeys(user.id);
  return RESET_DONE_MESSAGE;
}
