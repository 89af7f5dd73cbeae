import { NotFound } from "../errors.ts";

export interface Account {
  readonly id: number;
  readonly name: string;
  readonly locale: string;
  readonly status: "active" | "suspended";
  readonly created_at: number;
  readonly custom_attributes: Record<string, unknown>;
}

export interface AccountReader {
  getAccount(accountId: number): Promise<Account | undefined>;
}

export async function showAccount(store: AccountReader, accountId: number): Promise<Account> {
  const account = await store.getAccount(accountId);
  if (!account) throw new NotFound();
  return account;
}

/** The `{id,name}` reference embedded in event payloads. */
export const accountRef = (a: Pick<Account, "id" | "name">) => ({ id: a.id, name: a.name });
