/** Contacts: create, show, update, list, search. */
import { accountRef, type Account } from "./accounts.ts";
import { mergeAttributes } from "./attribute-maps.ts";
import { NotFound, ValidationError } from "../errors.ts";
import type { DomainEvent } from "../events/outbox.ts";
import { pageMeta, skipFor, slicePage, type Listing, type Page, type PageRequest } from "./paging.ts";
import { contactPostings, decideByTexts, matchesContact, normalize, planSearch, postingsAreMatches, type SearchCandidate, type SearchPlan, type TrigramPosting } from "./search-index.ts";
import { retryOnStale } from "./retry.ts";

export interface Contact {
  readonly id: number;
  readonly account_id: number;
  readonly name: string;
  readonly email: string | null;
  readonly phone_number: string | null;
  readonly identifier: string | null;
  readonly thumbnail: string;
  readonly custom_attributes: Record<string, unknown>;
  readonly additional_attributes: Record<string, unknown>;
  /** Chatwoot's flag for a contact whose messages the team ignores (stored and shown; false by default). */
  readonly blocked: boolean;
  readonly created_at: number;
  readonly updated_at: number;
  readonly last_activity_at: number | null;
}

export interface ContactStore {
  getAccount(accountId: number): Promise<Account | undefined>;
  nextContactId(accountId: number): Promise<number>;
  /** Writes the contact, its uniqueness markers, postings and events; 422 when e-mail/identifier is taken. */
  insertContact(contact: Contact, postings: readonly TrigramPosting[], events: readonly DomainEvent[]): Promise<void>;
  getContact(accountId: number, contactId: number): Promise<Contact | undefined>;
  getContacts(accountId: number, contactIds: readonly number[]): Promise<Contact[]>;
  /** Conditional on `prev` being unchanged; moves markers and postings in the same transaction. */
  updateContact(prev: Contact, next: Contact, postings: { readonly before: readonly TrigramPosting[]; readonly after: readonly TrigramPosting[] }, events: readonly DomainEvent[]): Promise<void>;
  listContacts(accountId: number, req: PageRequest): Promise<Page<Contact>>;
  countContacts(accountId: number): Promise<number>;
  /** The contacts that may match (a superset), with their postings' texts when the plan reads them. */
  searchCandidates(accountId: number, plan: SearchPlan): Promise<SearchCandidate[]>;
}

export interface ContactInput {
  readonly name?: string | undefined;
  readonly email?: string | null | undefined;
  readonly phone_number?: string | null | undefined;
  readonly identifier?: string | null | undefined;
  readonly custom_attributes?: Record<string, unknown> | undefined;
  readonly additional_attributes?: Record<string, unknown> | undefined;
  readonly blocked?: boolean | undefined;
}

/** The fields an update may change (the store writes exactly these, with updated_at). */
export const EDITABLE = ["name", "email", "phone_number", "identifier", "custom_attributes", "additional_attributes", "blocked"] as const;
type Editable = (typeof EDITABLE)[number];

export type ChangedAttributes = Record<string, { previous_value: unknown; current_value: unknown }>[];

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function changedAttributes<T extends object>(prev: T, next: T, fields: readonly (keyof T)[]): ChangedAttributes {
  return fields.filter((f) => !same(prev[f], next[f])).map((f) => ({ [f as string]: { previous_value: prev[f] ?? null, current_value: next[f] ?? null } }));
}

/**
 * A contact as account replies show it: Chatwoot's `contact_inboxes` (the contact's source ids per
 * inbox) is empty, Conversa keeps no per-inbox contact records.
 */
export const contactShown = <C extends Contact>(c: C) => ({ ...c, contact_inboxes: [] as { source_id: string; inbox: { id: number; name: string } }[] });

/** A page of contacts as lists and search show them: each as its own reply does. */
export function shownPage<M>(listing: Listing<Contact, M>): Listing<ReturnType<typeof contactShown<Contact>>, M> {
  return { ...listing, items: listing.items.map((c) => contactShown(c)) };
}

/** The contact as embedded in other payloads (conversation meta.sender, widget). */
export const contactRef = (c: Contact) => ({
  id: c.id,
  name: c.name,
  email: c.email,
  phone_number: c.phone_number,
  identifier: c.identifier,
  thumbnail: c.thumbnail,
  custom_attributes: c.custom_attributes,
  additional_attributes: c.additional_attributes,
  type: "contact" as const,
});

export function contactEvent(event: "contact_created" | "contact_updated", c: Contact, account: Account, changed?: ChangedAttributes): DomainEvent {
  return {
    event,
    accountId: c.account_id,
    payload: {
      ...c,
      event,
      id: String(c.id),
      account: accountRef(account),
      ...(changed ? { changed_attributes: changed } : {}),
    },
  };
}

async function requireAccount(store: ContactStore, accountId: number): Promise<Account> {
  const account = await store.getAccount(accountId);
  if (!account) throw new NotFound();
  return account;
}

const cleanEmail = (e: string | null | undefined) => (e === undefined ? undefined : e === null ? null : e.trim().toLowerCase());

export async function createContact(store: ContactStore, accountId: number, input: ContactInput, now: Date): Promise<Contact> {
  const [account, id] = await Promise.all([requireAccount(store, accountId), store.nextContactId(accountId)]);
  const ts = Math.floor(now.getTime() / 1000);
  const contact: Contact = {
    id,
    account_id: accountId,
    name: input.name ?? "",
    email: cleanEmail(input.email) ?? null,
    phone_number: input.phone_number ?? null,
    identifier: input.identifier ?? null,
    thumbnail: "",
    custom_attributes: input.custom_attributes ?? {},
    additional_attributes: input.additional_attributes ?? {},
    blocked: input.blocked ?? false,
    created_at: ts,
    updated_at: ts,
    last_activity_at: null,
  };
  await store.insertContact(contact, contactPostings(contact), [contactEvent("contact_created", contact, account)]);
  return contact;
}

export async function getContact(store: ContactStore, accountId: number, contactId: number): Promise<Contact> {
  const c = await store.getContact(accountId, contactId);
  if (!c) throw new NotFound();
  return c;
}

async function updateContactOnce(store: ContactStore, accountId: number, contactId: number, input: ContactInput, now: Date): Promise<Contact> {
  const [account, prev] = await Promise.all([requireAccount(store, accountId), getContact(store, accountId, contactId)]);
  const patch: Partial<Record<Editable, unknown>> = {};
  for (const f of EDITABLE) if (input[f] !== undefined) patch[f] = f === "email" ? cleanEmail(input.email) : input[f];
  // As Chatwoot's contact update: the maps sent are merged into the stored ones, key by key.
  if (input.custom_attributes !== undefined) patch.custom_attributes = mergeAttributes("custom_attributes", prev.custom_attributes, input.custom_attributes);
  if (input.additional_attributes !== undefined) patch.additional_attributes = mergeAttributes("additional_attributes", prev.additional_attributes, input.additional_attributes);
  const next = { ...prev, ...patch } as Contact;
  const changed = changedAttributes(prev, next, EDITABLE);
  if (changed.length === 0) return prev;
  const updated: Contact = { ...next, updated_at: Math.max(Math.floor(now.getTime() / 1000), prev.updated_at) };
  await store.updateContact(prev, updated, { before: contactPostings(prev), after: contactPostings(updated) }, [
    contactEvent("contact_updated", updated, account, changed),
  ]);
  return updated;
}

/** updateContact, read again and re-applied on fresh state when a concurrent update won the race. */
export const updateContact = (...args: Parameters<typeof updateContactOnce>) => retryOnStale(() => updateContactOnce(...args));

export async function listContacts(store: ContactStore, accountId: number, req: PageRequest): Promise<Listing<Contact>> {
  const [page, count] = await Promise.all([store.listContacts(accountId, req), store.countContacts(accountId)]);
  return { meta: pageMeta(count, req, page), items: page.items };
}

export const CONTACT_SORTS = [
  "name", "-name", "email", "-email", "phone_number", "-phone_number", "created_at", "-created_at", "last_activity_at", "-last_activity_at",
] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

const byName = (a: Contact, b: Contact) => a.name.localeCompare(b.name) || a.id - b.id;
/** By a text field that may be missing: contacts without it come last either way. */
const byText = (field: "email" | "phone_number", dir: 1 | -1) => (a: Contact, b: Contact) => {
  const x = a[field];
  const y = b[field];
  if (x === null || y === null) return x === y ? a.id - b.id : x === null ? 1 : -1;
  return dir * x.localeCompare(y) || a.id - b.id;
};
const byActivity = (a: Contact, b: Contact) => (b.last_activity_at ?? 0) - (a.last_activity_at ?? 0) || b.id - a.id;
const SORTS: Record<ContactSort, (a: Contact, b: Contact) => number> = {
  name: byName,
  "-name": (a, b) => byName(b, a),
  email: byText("email", 1),
  "-email": byText("email", -1),
  phone_number: byText("phone_number", 1),
  "-phone_number": byText("phone_number", -1),
  created_at: (a, b) => a.id - b.id,
  "-created_at": (a, b) => b.id - a.id,
  // Chatwoot's last_activity_at is "most recent first"; "-last_activity_at" is the reverse.
  last_activity_at: byActivity,
  "-last_activity_at": (a, b) => byActivity(b, a),
};

export const SEARCH_Q_MISSING = { error: "Specify search string with parameter q" };

export async function searchContacts(
  store: ContactStore,
  accountId: number,
  input: { q: string | undefined; sort: ContactSort | undefined; req: PageRequest },
): Promise<Listing<Contact>> {
  const q = normalize(input.q ?? "");
  if (!q) throw ValidationError.raw(SEARCH_Q_MISSING, SEARCH_Q_MISSING.error);
  const sort = input.sort ?? "-created_at";
  const candidates = await store.searchCandidates(accountId, planSearch(q));
  const byCreation = sort === "-created_at" || sort === "created_at";
  if (postingsAreMatches(q)) {
    if (byCreation) return pageByPostings(store, accountId, q, candidates.map((c) => c.id), sort === "-created_at", input.req);
    return pageInMemory(await store.getContacts(accountId, candidates.map((c) => c.id)), q, sort, input.req);
  }
  // A longer query: the postings' texts decide; postings without texts, their contacts.
  const { matches, undecided } = decideByTexts(candidates, q);
  const checked = undecided.length ? (await store.getContacts(accountId, undecided)).filter((c) => matchesContact(c, q)) : [];
  if (byCreation) return pageByPostings(store, accountId, q, [...matches, ...checked.map((c) => c.id)], sort === "-created_at", input.req);
  return pageInMemory([...(await store.getContacts(accountId, matches)), ...checked], q, sort, input.req);
}

/** Sorted by name, e-mail, phone or activity, which the postings do not hold: every match is read, then paged. */
function pageInMemory(contacts: readonly Contact[], q: string, sort: ContactSort, req: PageRequest): Listing<Contact> {
  const matches = contacts.filter((c) => matchesContact(c, q));
  matches.sort(SORTS[sort]);
  const page = slicePage(matches, req);
  return { meta: pageMeta(matches.length, req, page), items: page.items };
}

/**
 * A search whose postings are its matches (one posting list), in id order (creation order): the
 * count is the number of candidates, `page` seeks by position and `cursor` by id, and only the
 * page's candidates (one more for has_more) are read and verified. A stale posting (a contact whose
 * text changed and whose old posting is not deleted yet) is dropped by the verification: the page
 * is filled from the next candidates and the count leaves it out.
 */
async function pageByPostings(store: ContactStore, accountId: number, q: string, ids: readonly number[], newestFirst: boolean, req: PageRequest): Promise<Listing<Contact>> {
  const ordered = [...ids].sort((x, y) => (newestFirst ? y - x : x - y));
  const after = req.afterId;
  const start = after === undefined ? skipFor(req) : ordered.findIndex((id) => (newestFirst ? id < after : id > after));
  const found: Contact[] = [];
  let stale = 0;
  for (let at = start < 0 ? ordered.length : start; at < ordered.length && found.length <= req.per; ) {
    const batch = ordered.slice(at, at + req.per + 1 - found.length);
    at += batch.length;
    const read = new Map((await store.getContacts(accountId, batch)).map((c) => [c.id, c]));
    for (const id of batch) {
      const c = read.get(id);
      if (c && matchesContact(c, q)) found.push(c);
      else stale++;
    }
  }
  const items = found.slice(0, req.per);
  const hasMore = found.length > req.per;
  return { meta: pageMeta(ordered.length - stale, req, { items, hasMore, lastId: items.at(-1)?.id }), items };
}
