/** The 12 subscribable events, in their documented order. */
export const EVENT_NAMES = [
  "conversation_created",
  "conversation_updated",
  "conversation_status_changed",
  "conversation_typing_on",
  "conversation_typing_off",
  "message_created",
  "message_updated",
  "contact_created",
  "contact_updated",
  "inbox_created",
  "inbox_updated",
  "webwidget_triggered",
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

export const isEventName = (s: string): s is EventName => (EVENT_NAMES as readonly string[]).includes(s);

/**
 * Events for the operator's own EventBridge rules (not webhook events: never delivered to
 * customer webhooks). They travel the same outbox -> Pipe -> bus path.
 */
export const OPERATOR_EVENT_NAMES = ["subscription_created", "quote_requested", "webhook_disabled"] as const;
export type OperatorEventName = (typeof OPERATOR_EVENT_NAMES)[number];

/** EventBridge `source` of every event the Pipe puts on the bus. */
export const EVENT_SOURCE = "conversa";
