/** The recommended client of the Conversa API. */
export { createClient, type ClientOptions, type ConversaClient } from "./client.ts";
export { ConversaError, type FieldError } from "./errors.ts";
export { OPERATIONS, type OperationInfo } from "./operations.ts";
export type { RetryEvent, RetryOptions } from "./retry.ts";
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from "./webhooks.ts";
export type {
  ArgsOf,
  BodyOf,
  CallOptions,
  components,
  ItemOf,
  OperationId,
  operations,
  PagedOperationId,
  QueryOf,
  ReplyOf,
  RequestOf,
  WebhookEventName,
} from "./types.ts";
