/**
 * The shape events have between the outbox and the fan-out, defined once for the CDK Pipe
 * (infra/webhooks.ts), the sandbox's stream poller (infra/local/pipeline.ts) and the fan-out:
 *
 *   stream record --Pipe filter--> input template --bus (detail-type, source)--> rule --> SQS body
 *
 * The Pipe renders PIPE_INPUT_TEMPLATE against the stream record to make the event's `detail`,
 * takes the detail-type from PIPE_DETAIL_TYPE_PATH, the source is EVENT_SOURCE; the rule's
 * RULE_PATTERN picks the 12 webhook events; EventBridge puts the whole envelope on the queue.
 */
import * as z from "zod/mini";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { EVENT_NAMES, EVENT_SOURCE, OPERATOR_EVENT_NAMES, type EventName } from "./catalog.ts";
import { OUTBOX_ENTITY, type OutboxEvent } from "./outbox.ts";

/** EventBridge Pipes filter (DynamoDB stream record): outbox inserts only. */
export const PIPE_FILTER_PATTERN = { eventName: ["INSERT"], dynamodb: { NewImage: { entity: { S: [OUTBOX_ENTITY] } } } } as const;

/** The event's `detail`: the outbox item as its stream image (DynamoDB JSON). */
export const PIPE_INPUT_TEMPLATE = '{"outbox": <$.dynamodb.NewImage>}';

/** Pipe target parameter: the detail-type is the event name. */
export const PIPE_DETAIL_TYPE_PATH = "$.dynamodb.NewImage.event.S";

/** The rule from the bus to the events queue: the 12 webhook events (never operator events). */
export const RULE_PATTERN = { source: [EVENT_SOURCE], "detail-type": [...EVENT_NAMES] };

/** What an operator's own rule on the bus matches: the operator events (subscriptions, quotes, disabled webhooks). */
export const OPERATOR_PATTERN = { source: [EVENT_SOURCE], "detail-type": [...OPERATOR_EVENT_NAMES] };

/** `$.a.b.c` on a JSON value. */
export function jsonPath(value: unknown, path: string): unknown {
  if (!path.startsWith("$")) throw new Error(`not a JSON path: ${path}`);
  let v: unknown = value;
  for (const part of path.slice(1).split(".").filter(Boolean)) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/**
 * Renders a Pipes input template: `<$.path>` inside quotes inserts the value as string content,
 * outside quotes as JSON.
 */
export function renderInputTemplate(template: string, record: unknown): string {
  return template.replace(/("?)<(\$[A-Za-z0-9_.]*)>("?)/g, (_m, open: string, path: string, close: string) => {
    const v = jsonPath(record, path);
    if (open && close) return JSON.stringify(typeof v === "string" ? v : JSON.stringify(v ?? null));
    return `${open}${JSON.stringify(v ?? null)}${close}`;
  });
}

/** EventBridge / Pipes pattern matching for the patterns above: exact values in arrays, nested objects. */
export function matchesPattern(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((p) => p === value);
  if (pattern && typeof pattern === "object") {
    if (!value || typeof value !== "object") return false;
    return Object.entries(pattern).every(([k, p]) => matchesPattern(p, (value as Record<string, unknown>)[k]));
  }
  return false;
}

export interface BusEnvelope {
  readonly version: "0";
  readonly id: string;
  readonly "detail-type": string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

/** What Pipe + bus make of a stream record; undefined when the Pipe's filter drops it. */
export function envelopeFor(record: unknown, opts: { id: string; account: string; region: string; time: Date }): BusEnvelope | undefined {
  if (!matchesPattern(PIPE_FILTER_PATTERN, record)) return undefined;
  return {
    version: "0",
    id: opts.id,
    "detail-type": String(jsonPath(record, PIPE_DETAIL_TYPE_PATH)),
    source: EVENT_SOURCE,
    account: opts.account,
    time: opts.time.toISOString().replace(/\.\d{3}Z$/, "Z"),
    region: opts.region,
    resources: [],
    detail: JSON.parse(renderInputTemplate(PIPE_INPUT_TEMPLATE, record)) as unknown,
  };
}

// The fan-out's side: the SQS body is the envelope.
const queuedEnvelope = z.object({
  "detail-type": z.string(),
  source: z.literal(EVENT_SOURCE),
  detail: z.object({ outbox: z.record(z.string(), z.unknown()) }),
});

const outboxFields = z.object({
  entity: z.literal(OUTBOX_ENTITY),
  eventId: z.string().check(z.minLength(1)),
  event: z.enum(EVENT_NAMES),
  accountId: z.number().check(z.int()),
  inboxId: z.optional(z.number().check(z.int())),
  payload: z.string(),
});

/** The outbox event carried by an events-queue message; throws on anything else (zod). */
export function outboxEventFromBody(body: string): OutboxEvent {
  const env = queuedEnvelope.parse(JSON.parse(body));
  const item = outboxFields.parse(unmarshall(env.detail.outbox as Record<string, AttributeValue>));
  if (item.event !== (env["detail-type"] as EventName)) throw new Error(`detail-type ${env["detail-type"]} != outbox event ${item.event}`);
  return { eventId: item.eventId, event: item.event, accountId: item.accountId, inboxId: item.inboxId, payload: item.payload };
}
