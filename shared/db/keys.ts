/**
 * Every key string of the main table comes from here (DESIGN.md, Data).
 * Ids are zero-padded in sort keys so that lexical order is numeric order.
 */

export const pad = (n: number): string => n.toString().padStart(10, "0");

export const keys = {
  /** Global counters (account and user ids). */
  globalCounter: (name: string) => ({ pk: "GLOBAL", sk: `COUNTER#${name}` }),
  /** Per-account counters (inbox, contact, conversation... display ids). */
  accountCounter: (accountId: number, name: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `COUNTER#${name}` }),

  account: (accountId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: "ACCOUNT" }),
  member: (accountId: number, userId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: `MEMBER#${pad(userId)}` }),
  /** GSI1 of a membership: the accounts of one user. */
  memberGsi1: (userId: number, accountId: number) => ({ gsi1pk: `USER#${userId}`, gsi1sk: `MEMBER#${pad(accountId)}` }),

  user: (userId: number) => ({ pk: `USER#${userId}`, sk: "USER" }),
  /** Uniqueness marker: one user per e-mail (lower-cased). */
  userEmail: (email: string) => ({ pk: `EMAIL#${email.trim().toLowerCase()}`, sk: "EMAIL" }),

  /** Auth lookup item: found by the SHA-256 of the presented key. */
  apiKeyByHash: (hashHex: string) => ({ pk: `APIKEY#${hashHex}`, sk: "APIKEY" }),
  /** The user's view of a key (list, revoke): holds the hash so revocation deletes both. */
  userApiKey: (userId: number, keyId: string) => ({ pk: `USER#${userId}`, sk: `APIKEY#${keyId}` }),
  userApiKeyPrefix: (userId: number) => ({ pk: `USER#${userId}`, skPrefix: "APIKEY#" }),

  inbox: (accountId: number, inboxId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: `INBOX#${pad(inboxId)}` }),
  inboxPrefix: (accountId: number) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: "INBOX#" }),

  // Webhooks (issue 3)
  webhook: (accountId: number, webhookId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: `WEBHOOK#${pad(webhookId)}` }),
  webhookPrefix: (accountId: number) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: "WEBHOOK#" }),
  /** Uniqueness marker: one webhook per (account, normalized url); `urlHash` = SHA-256 hex of the url. */
  webhookUrl: (accountId: number, urlHash: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `WHURL#${urlHash}` }),
  /** Fan-out marker: this outbox event's deliveries were enqueued. */
  fanout: (eventId: string) => ({ pk: `FANOUT#${eventId}`, sk: "FANOUT" }),
  /** A delivery (one per event and webhook) and its attempt log. */
  delivery: (deliveryId: string) => ({ pk: `DELIVERY#${deliveryId}`, sk: "DELIVERY" }),
  /** GSI1 of a delivery: the deliveries of one webhook, oldest first by creation time. */
  deliveryGsi1: (accountId: number, webhookId: number, createdAtMs: number, deliveryId: string) => ({
    gsi1pk: `WEBHOOK#${accountId}#${pad(webhookId)}`,
    gsi1sk: `DELIVERY#${createdAtMs.toString().padStart(15, "0")}#${deliveryId}`,
  }),
  deliveryGsi1Prefix: (accountId: number, webhookId: number) => ({ gsi1pk: `WEBHOOK#${accountId}#${pad(webhookId)}`, skPrefix: "DELIVERY#" }),
} as const;
