/**
 * The webhook body of each of the 12 events, as zod/mini schemas.
 * Top-level `event` and string `id` always; the listed fields required; unknown fields allowed
 * (receivers must tolerate them). The outbox writer checks every webhook event against
 * these: a mismatch is a programming error in a payload builder, never a client error.
 */
import * as z from "zod/mini";
import type { EventName } from "./catalog.ts";

/**
 * Each schema is built on first use of its event, not at import: every function bundles this
 * module (through the outbox writer), most emit one or two of the events and some none, and
 * building all twelve cost ≈ 2 ms of each cold start (bench:coldstart).
 */
const int = () => z.number().check(z.int());
const nullableStr = () => z.nullable(z.string());
const ref = () => z.looseObject({ id: int(), name: z.string() });
const record = () => z.record(z.string(), z.unknown());
const obj = () => z.looseObject({});

const base = <E extends EventName>(event: E) => ({ event: z.literal(event), id: z.string().check(z.minLength(1)) });

const message = (event: "message_created" | "message_updated") =>
  z.looseObject({
    ...base(event),
    content: nullableStr(),
    message_type: z.enum(["incoming", "outgoing", "activity", "template"]),
    content_type: z.string(),
    content_attributes: record(),
    private: z.boolean(),
    created_at: z.union([int(), z.string()]),
    source_id: nullableStr(),
    /** Activity messages may have no sender. */
    sender: z.nullable(z.looseObject({ id: int(), name: z.string(), type: z.string() })),
    conversation: z.looseObject({ id: int(), status: z.string(), inbox_id: int() }),
    inbox: ref(),
    account: ref(),
  });

const changedAttributes = () => z.array(record());

const conversationBase = () => ({
  status: z.string(),
  inbox_id: int(),
  contact: obj(),
  meta: z.looseObject({ sender: z.nullable(obj()), assignee: z.nullable(obj()) }),
  messages: z.array(obj()),
  created_at: z.union([int(), z.string()]),
});

const contact = (event: "contact_created" | "contact_updated") =>
  z.looseObject({
    ...base(event),
    name: nullableStr(),
    email: nullableStr(),
    phone_number: nullableStr(),
    identifier: nullableStr(),
    custom_attributes: record(),
    additional_attributes: record(),
    account: ref(),
  });

const inbox = (event: "inbox_created" | "inbox_updated") =>
  z.looseObject({ ...base(event), name: z.string(), channel_type: z.string(), account: ref() });

const typing = (event: "conversation_typing_on" | "conversation_typing_off") =>
  z.looseObject({
    ...base(event),
    user: z.looseObject({ id: int(), name: z.string(), type: z.string() }),
    conversation: obj(),
    is_private: z.boolean(),
  });

/** How to build each event's schema (payloadSchema builds it once). */
export const PAYLOAD_BUILDERS = {
  conversation_created: () => z.looseObject({ ...base("conversation_created"), ...conversationBase() }),
  conversation_updated: () =>
    z.looseObject({ ...base("conversation_updated"), ...conversationBase(), changed_attributes: changedAttributes() }),
  conversation_status_changed: () =>
    z.looseObject({
      ...base("conversation_status_changed"),
      ...conversationBase(),
      changed_attributes: changedAttributes(),
    }),
  conversation_typing_on: () => typing("conversation_typing_on"),
  conversation_typing_off: () => typing("conversation_typing_off"),
  message_created: () => message("message_created"),
  message_updated: () => message("message_updated"),
  contact_created: () => contact("contact_created"),
  contact_updated: () => contact("contact_updated"),
  inbox_created: () => inbox("inbox_created"),
  inbox_updated: () => inbox("inbox_updated"),
  webwidget_triggered: () =>
    z.looseObject({
      ...base("webwidget_triggered"),
      contact: obj(),
      inbox: ref(),
      account: ref(),
      event_info: record(),
      source_id: nullableStr(),
    }),
} as const satisfies Record<EventName, () => z.ZodMiniType>;

const built = new Map<EventName, z.ZodMiniType>();

/** The schema of one event's payload, built once per container. */
export function payloadSchema(event: EventName): z.ZodMiniType {
  let schema = built.get(event);
  if (!schema) {
    schema = PAYLOAD_BUILDERS[event]();
    built.set(event, schema);
  }
  return schema;
}

export class InvalidEventPayload extends Error {
  constructor(event: string, issues: readonly { path: readonly PropertyKey[]; message: string }[]) {
    super(`payload of ${event} does not match its schema: ${issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`).join("; ")}`);
    this.name = "InvalidEventPayload";
  }
}

/** Throws InvalidEventPayload when a webhook event's payload does not have its documented shape. */
export function checkPayload(event: EventName, payload: unknown): void {
  const r = payloadSchema(event).safeParse(payload);
  if (!r.success) throw new InvalidEventPayload(event, r.error.issues);
}
