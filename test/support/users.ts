/** A user with a password, a membership and no key yet: the starting point of a login. */
import { addMember, createAccount, createUser } from "../../shared/db/accounts-repo.ts";
import { hashPassword } from "../../shared/domain/passwords.ts";

export interface UserFixture {
  readonly userId: number;
  readonly accountId: number;
  readonly email: string;
  readonly password: string;
  readonly name: string;
}

let n = 0;
export async function makeUser(opts: { password?: string; role?: "administrator" | "agent" } = {}): Promise<UserFixture> {
  const now = Math.floor(Date.now() / 1000);
  const tag = `${process.pid}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  const password = opts.password ?? `pw-${tag}`;
  const email = `user-${tag}@example.com`;
  const name = `User ${tag}`;
  const accountId = await createAccount(`Account ${tag}`, now);
  const userId = await createUser({ name, email, passwordHash: await hashPassword(password), nowSec: now });
  await addMember(accountId, userId, opts.role ?? "administrator", now);
  return { userId, accountId, email, password, name };
}
