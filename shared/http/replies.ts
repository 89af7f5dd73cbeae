/**
 * The envelopes of JSON replies. Use cases return plain results (a record, a view, a listing);
 * the handler wraps them here, so that every envelope is built in one place and one layer.
 */
import type { Listing } from "../domain/paging.ts";

/** `{"payload": value}`: Chatwoot's envelope of one record, or of a keyed group (`{contact}`, `{webhook}`). */
export const payloadReply = <T>(payload: T) => ({ payload });

/** `{"data": value}`. */
export const dataReply = <T>(data: T) => ({ data });

/** `{"success": true}`: the action is done and there is nothing else to show. */
export const successReply = () => ({ success: true as const });

/** One page of a list: `{"meta": paging, "payload": items}`. */
export const pageReply = <T, M>(listing: Listing<T, M>) => ({ meta: listing.meta, payload: listing.items });

/** One page of a list with the items first: `{"payload": items, "meta": paging}` (webhook deliveries). */
export const itemsFirstPageReply = <T, M>(listing: Listing<T, M>) => ({ payload: listing.items, meta: listing.meta });
