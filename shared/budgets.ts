/**
 * THE call budget of every route: the most AWS calls one representative request may make, per
 * service. Next to the route table (shared/routes.ts); test/integration/call-budget.test.ts counts
 * each route's calls through the shared clients and fails when a route goes over its budget or
 * has none. Counted as deployed: the per-IP throttle counter (one UpdateItem on the throttle
 * table) and each named rule's counter, the key lookup (one BatchGetItem: key + membership), the
 * reads the contract needs and one write or transaction; so a new call on a hot path is a
 * deliberate change of this table. docs/scale.md turns them into throughput and cost.
 */

export interface CallBudget {
  /** DynamoDB requests (GetItem, Query, BatchGet, TransactWrite, UpdateItem ... one each). */
  readonly dynamodb: number;
  readonly sqs: number;
  readonly s3: number;
  readonly eventbridge: number;
}

/** b(dynamodb, sqs, s3, eventbridge) */
const b = (dynamodb: number, sqs = 0, s3 = 0, eventbridge = 0): CallBudget => ({ dynamodb, sqs, s3, eventbridge });

/** Route id -> budget. Keyed by string: a route added to the table without a budget fails the test, not the build. */
export const budgets: Readonly<Record<string, CallBudget>> = {
  // Accounts and inboxes
  "accounts.show": b(4),
  "inboxes.list": b(3),
  "inboxes.create": b(5),
  "inboxes.show": b(3),
  "inboxes.update": b(5),
  // Webhooks
  "webhooks.list": b(4),
  "webhooks.create": b(4),
  "webhooks.show": b(3),
  "webhooks.update": b(4),
  "webhooks.delete": b(4),
  "webhooks.reset_secret": b(4),
  "webhooks.deliveries": b(5),
  "webhooks.resend": b(5, 1),
  "webhooks.attempts": b(4),
  // A page of the window's deliveries, the recovery item (cursor, lease) and the re-queued ones.
  "webhooks.recover": b(7),
  // The sample's pending delivery (PutItem) and one message on the deliveries queue.
  "webhooks.test": b(4, 1),
  // Contacts
  "contacts.list": b(4),
  "contacts.create": b(5),
  // Throttle (2), key, a first page of up to 6 posting lists in parallel, one list read on when
  // none ended there, the page's contacts (a query of 4+ characters; a shorter one reads 1 list).
  "contacts.search": b(11),
  "contacts.show": b(3),
  // The update's transaction, then one transaction deleting the postings the new name drops
  // (kept out of the first so that concurrent updates of one contact hold it for less).
  "contacts.update": b(6),
  "contacts.replace": b(6),
  // Conversations and messages
  "conversations.list": b(5),
  "conversations.create": b(8),
  "conversations.meta": b(4),
  "conversations.show": b(4),
  "conversations.update": b(6),
  "conversations.toggle_status": b(6),
  "conversations.toggle_typing_status": b(6),
  "conversations.assignments": b(9),
  "conversations.transcript": b(5),
  "messages.list": b(4),
  // Throttle, key, one read of account + conversation (+ sender), the id, one read of inbox +
  // contact, the transaction.
  "messages.create": b(6),
  "messages.update": b(7),
  // Upload, reports, widget
  "upload.create": b(5, 0, 1),
  "reports.show": b(8),
  "widget.events": b(8),
  // Authentication and API keys
  "auth.sign_in": b(8),
  "auth.password_request": b(5),
  "auth.password_reset": b(7),
  "access_tokens.list": b(4),
  "access_tokens.create": b(3),
  "access_tokens.revoke": b(4),
  // Public checkout and billing
  "checkout.plans": b(3),
  // The checkout page and its files: the per-IP counter only (the files are in the bundle).
  "checkout.page": b(1),
  "checkout.asset": b(1),
  "checkout.link": b(3),
  "checkout.prefill": b(3),
  "checkout.coupon": b(4),
  "checkout.subscribe": b(8),
  "checkout.quote": b(4),
  "billing.coupon": b(6),
};
