/**
 * `POST /auth/sign_in`: e-mail + password -> a new API key for this
 * session. Exactly one scrypt verification per attempt, known e-mail or not (against
 * DUMMY_HASH when unknown), so the hashing work does not reveal which e-mails exist.
 */
import type { Role } from "./identity.ts";
import { InvalidLogin } from "../errors.ts";
import { DUMMY_HASH, verifyPassword } from "./passwords.ts";

/** A user as the credential flows see it. */
export interface CredentialUser {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly passwordHash?: string | undefined;
  /** Bumped by every password reset; a key is only issued while it is unchanged. */
  readonly pwVersion: number;
}

export interface AccountMembership {
  readonly id: number;
  readonly name: string;
  readonly role: Role;
}

export interface IssuedKey {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly created_at: number;
  /** The full key: returned once, stored only as its SHA-256. */
  readonly access_token: string;
}

export interface SignInStore {
  /** By the lower-cased, trimmed e-mail; does the same number of reads when there is none. */
  findUserByEmail(email: string): Promise<CredentialUser | undefined>;
  /** The user's accounts, lowest account id first. */
  accountsOf(userId: number): Promise<AccountMembership[]>;
  /** Issues a key if the user's `pwVersion` is still `user.pwVersion`; undefined otherwise. */
  issueKey(user: CredentialUser, name: string, nowSec: number): Promise<IssuedKey | undefined>;
}

export interface SignInInput {
  readonly email: string;
  readonly password: string;
}

/** The signed-in user, the new key and the user's accounts (the first one is the default). */
export interface SignedIn {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly account_id: number | null;
  readonly role: Role | null;
  readonly access_token: string;
  readonly provider: "email";
  readonly uid: string;
  readonly accounts: readonly AccountMembership[];
}

export const SESSION_KEY_NAME = "session";

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export async function signIn(store: SignInStore, input: SignInInput, now: Date): Promise<SignedIn> {
  const user = await store.findUserByEmail(normalizeEmail(input.email));
  // Always one verification: a user without a password (API-only) is checked against the dummy too.
  const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !user.passwordHash || !ok) throw new InvalidLogin();

  const accounts = await store.accountsOf(user.id);
  const key = await store.issueKey(user, SESSION_KEY_NAME, Math.floor(now.getTime() / 1000));
  // The password changed between the check and the key (a reset raced this login).
  if (!key) throw new InvalidLogin();
  const first = accounts[0];
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    account_id: first?.id ?? null,
    role: first?.role ?? null,
    access_token: key.access_token,
    provider: "email",
    uid: user.email,
    accounts,
  };
}
