/**
 * Every key string of the main table comes from here (one table: every key is built by these functions).
 * Ids are zero-padded in sort keys so that lexical order is numeric order.
 */

export const pad = (n: number): string => n.toString().padStart(10, "0");

/** Write shards of each report partition (docs/scale.md: a busy account's messages all add to one day item). */
export const REPORT_SHARDS = 4;
const reportPk = (accountId: number, scope: string, shard: number) => `ACCOUNT#${accountId}#REPORT#${scope}${shard ? `#S${shard}` : ""}`;

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

  // Conversation domain: contacts, search index, conversations, messages, counters, reports, uploads.
  contact: (accountId: number, contactId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: `CONTACT#${pad(contactId)}` }),
  contactPrefix: (accountId: number) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: "CONTACT#" }),
  /** Uniqueness markers: one contact per e-mail / identifier in an account. */
  contactEmail: (accountId: number, email: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `CONTACT_EMAIL#${email.trim().toLowerCase()}` }),
  contactIdentifier: (accountId: number, identifier: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `CONTACT_IDENT#${identifier}` }),
  /**
   * Search index posting: one item per (trigram, contact). Partitioned by the trigram's first
   * character so that a 1- or 2-character query is a `begins_with` on one partition.
   */
  contactTrigram: (accountId: number, trigram: string, contactId: number) => ({
    pk: `ACCOUNT#${accountId}#TRI#${[...trigram][0]}`,
    sk: `${trigram}#${pad(contactId)}`,
  }),
  contactTrigramPartition: (accountId: number, firstChar: string) => ({ pk: `ACCOUNT#${accountId}#TRI#${firstChar}` }),

  conversation: (accountId: number, conversationId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: `CONV#${pad(conversationId)}` }),
  conversationPrefix: (accountId: number) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: "CONV#" }),
  /** GSI1 of a conversation: the account's conversations of one status, by id. */
  conversationGsi1: (accountId: number, status: string, conversationId: number) => ({ gsi1pk: `ACCOUNT#${accountId}#CONVS#${status}`, gsi1sk: pad(conversationId) }),
  /** GSI2 of a conversation: one inbox's conversations of one status, by id. */
  conversationGsi2: (accountId: number, inboxId: number, status: string, conversationId: number) => ({
    gsi2pk: `ACCOUNT#${accountId}#INBOX#${inboxId}#CONVS#${status}`,
    gsi2sk: pad(conversationId),
  }),
  /** Counter item of conversations/meta: one per (status, inbox or "*"). */
  conversationCounter: (accountId: number, status: string, inboxId: number | "*") => ({ pk: `ACCOUNT#${accountId}`, sk: `CONVMETA#${status}#${inboxId}` }),

  message: (accountId: number, conversationId: number, messageId: number) => ({ pk: `ACCOUNT#${accountId}#CONV#${pad(conversationId)}`, sk: `MSG#${pad(messageId)}` }),
  messagePrefix: (accountId: number, conversationId: number) => ({ pk: `ACCOUNT#${accountId}#CONV#${pad(conversationId)}`, skPrefix: "MSG#" }),

  /**
   * Per-day report counters; scope = "account" or "inbox#<id>"; day = YYYY-MM-DD (UTC). Written in
   * REPORT_SHARDS partitions (every message of a busy account adds to its day item): shard 0 is the
   * unsuffixed partition, shard k > 0 ends in `#S<k>`; a day's value is the sum over the shards.
   */
  reportDay: (accountId: number, scope: string, day: string, shard = 0) => ({ pk: reportPk(accountId, scope, shard), sk: `DAY#${day}` }),
  reportPartition: (accountId: number, scope: string, shard = 0) => ({ pk: reportPk(accountId, scope, shard) }),

  upload: (accountId: number, blobId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: `UPLOAD#${pad(blobId)}` }),
  // Webhooks
  webhook: (accountId: number, webhookId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: `WEBHOOK#${pad(webhookId)}` }),
  webhookPrefix: (accountId: number) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: "WEBHOOK#" }),
  /** Uniqueness marker: one webhook per (account, normalized url); `urlHash` = SHA-256 hex of the url. */
  webhookUrl: (accountId: number, urlHash: string) => ({ pk: `ACCOUNT#${accountId}`, sk: `WHURL#${urlHash}` }),
  /** Fan-out marker: this outbox event's deliveries were enqueued. */
  fanout: (eventId: string) => ({ pk: `FANOUT#${eventId}`, sk: "FANOUT" }),
  /** A recovery run of one webhook's window of deliveries (its cursor and count). */
  recovery: (accountId: number, webhookId: number, since: number, until: number) => ({ pk: `RECOVERY#${accountId}#${pad(webhookId)}`, sk: `${since}#${until}` }),
  /** A delivery (one per event and webhook) and its attempt log. */
  delivery: (deliveryId: string) => ({ pk: `DELIVERY#${deliveryId}`, sk: "DELIVERY" }),
  /** GSI1 of a delivery: the deliveries of one webhook, oldest first by creation time. */
  deliveryGsi1: (accountId: number, webhookId: number, createdAtMs: number, deliveryId: string) => ({
    gsi1pk: `WEBHOOK#${accountId}#${pad(webhookId)}`,
    gsi1sk: `DELIVERY#${createdAtMs.toString().padStart(15, "0")}#${deliveryId}`,
  }),
  deliveryGsi1Prefix: (accountId: number, webhookId: number) => ({ gsi1pk: `WEBHOOK#${accountId}#${pad(webhookId)}`, skPrefix: "DELIVERY#" }),
  /** THROTTLE table: a key's `last_used_at` (every function may write that table). */
  apiKeyUse: (keyId: string) => ({ pk: `KEYUSE#${keyId}` }),
  /** Password-reset token, found by the SHA-256 of the token in the mailed link. */
  passwordReset: (hashHex: string) => ({ pk: `PWRESET#${hashHex}`, sk: "PWRESET" }),
} as const;

/** Keys of the throttle table (pk only): one item per (rule, subject, fixed window) or per (rule, subject) for sliding rules. */
export const throttleKeys = {
  fixed: (rule: string, subject: string, windowStart: number) => ({ pk: `RL#${rule}#${subject}#${windowStart}` }),
  sliding: (rule: string, subject: string) => ({ pk: `RL#${rule}#${subject}` }),
  /** Attribute of a sliding counter holding one slice's count. */
  sliceAttribute: (slice: number) => `s${slice}`,
  sliceOf: (attribute: string): number | undefined => (/^s\d+$/.test(attribute) ? Number(attribute.slice(1)) : undefined),
} as const;

/** Public checkout and billing: catalog, checkout tokens, subscriptions, quotes. */
export const checkoutKeys = {
  /** Plans and coupons share one partition each: small, listed whole, read by slug/code. */
  plan: (slug: string) => ({ pk: "CATALOG#PLAN", sk: `PLAN#${slug}` }),
  planPrefix: () => ({ pk: "CATALOG#PLAN", skPrefix: "PLAN#" }),
  coupon: (code: string) => ({ pk: "CATALOG#COUPON", sk: `COUPON#${code}` }),
  couponPrefix: () => ({ pk: "CATALOG#COUPON", skPrefix: "COUPON#" }),
  /** Found by the SHA-256 (hex) of the token in the link; the token itself is never stored. */
  checkoutToken: (hashHex: string) => ({ pk: `CHECKOUT_TOKEN#${hashHex}`, sk: "CHECKOUT_TOKEN" }),
  /** The account's current subscription. */
  subscription: (accountId: number) => ({ pk: `ACCOUNT#${accountId}`, sk: "SUBSCRIPTION" }),
  /** Idempotency-Key records, per route. */
  idempotency: (scope: string, key: string) => ({ pk: `IDEMPOTENCY#${scope}#${key}`, sk: "IDEMPOTENCY" }),
  quote: (quoteId: number) => ({ pk: `QUOTE#${pad(quoteId)}`, sk: "QUOTE" }),
} as const;
