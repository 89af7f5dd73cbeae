/** Test fixtures: accounts with an administrator and an agent key, created through the repositories. */
import { addMember, createAccount, createUser, issueKey } from "../../shared/db/accounts-repo.ts";

export interface AccountFixture {
  readonly accountId: number;
  readonly adminKey: string;
  readonly agentKey: string;
  readonly adminUserId: number;
  readonly agentUserId: number;
  readonly adminEmail: string;
}

let n = 0;
export async function makeAccount(name = "Test Co"): Promise<AccountFixture> {
  const now = Math.floor(Date.now() / 1000);
  const tag = `${process.pid}-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  const accountId = await createAccount(name, now);
  const adminEmail = `admin-${tag}@example.com`;
  const adminUserId = await createUser({ name: "Admin", email: adminEmail, nowSec: now });
  const agentUserId = await createUser({ name: "Agent", email: `agent-${tag}@example.com`, nowSec: now });
  await addMember(accountId, adminUserId, "administrator", now);
  await addMember(accountId, agentUserId, "agent", now);
  return {
    accountId,
    adminKey: await issueKey(adminUserId, "test", now),
    agentKey: await issueKey(agentUserId, "test", now),
    adminUserId,
    agentUserId,
    adminEmail,
  };
}
