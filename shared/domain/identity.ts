/** A member's role in an account; an account route names the least role it allows. */
export type Role = "administrator" | "agent";

/** Who is calling: resolved from `api_access_token` (and the account in the path). */
export interface Identity {
  readonly userId: number;
  /** The API key used: its own identity for per-user rate limits (a user is an API key there). */
  readonly keyId: string;
  /** Present on account routes, after the membership check. */
  readonly accountId?: number;
  readonly role?: Role;
}

const rank: Record<Role, number> = { agent: 1, administrator: 2 };

export function roleAllows(actual: Role, needed: Role): boolean {
  return rank[actual] >= rank[needed];
}
