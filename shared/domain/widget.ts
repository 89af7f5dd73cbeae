/** The public web-widget events endpoint: fires `webwidget_triggered` for a website_token. */
import { accountRef, type Account } from "./accounts.ts";
import { contactRef, type Contact } from "./contacts.ts";
import { NotFound } from "../errors.ts";
import type { Inbox } from "./inboxes.ts";
import type { DomainEvent } from "../events/outbox.ts";
import { randomToken } from "./secrets.ts";

export interface WidgetStore {
  findWidgetInbox(websiteToken: string): Promise<{ accountId: number; inboxId: number } | undefined>;
  getAccount(accountId: number): Promise<Account | undefined>;
  getInbox(accountId: number, inboxId: number): Promise<Inbox | undefined>;
  findContactByIdentifier(accountId: number, identifier: string): Promise<Contact | undefined>;
  emit(events: readonly DomainEvent[]): Promise<void>;
}

export interface WidgetEventInput {
  readonly name: "webwidget.triggered";
  readonly event_info?: Record<string, unknown> | undefined;
  readonly contact_identifier?: string | undefined;
}

/**
 * A known `contact_identifier` embeds that contact; an unknown or absent one sends `contact: {}`
 * and a random visitor id (the endpoint is public: it never creates contacts).
 */
export async function triggerWidget(store: WidgetStore, websiteToken: string, input: WidgetEventInput): Promise<void> {
  const found = await store.findWidgetInbox(websiteToken);
  if (!found) throw new NotFound();
  const [account, inbox, contact] = await Promise.all([
    store.getAccount(found.accountId),
    store.getInbox(found.accountId, found.inboxId),
    input.contact_identifier ? store.findContactByIdentifier(found.accountId, input.contact_identifier) : Promise.resolve(undefined),
  ]);
  if (!account || !inbox || inbox.website_token !== websiteToken) throw new NotFound();
  const event = "webwidget_triggered";
  await store.emit([
    {
      event,
      accountId: account.id,
      inboxId: inbox.id,
      payload: {
        event,
        id: contact ? String(contact.id) : `visitor_${randomToken(12)}`,
        contact: contact ? contactRef(contact) : {},
        inbox: { id: inbox.id, name: inbox.name },
        account: accountRef(account),
        event_info: input.event_info ?? {},
        source_id: input.contact_identifier ?? null,
        current_conversation: null,
      },
    },
  ]);
}
