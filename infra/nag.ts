/**
 * cdk-nag (AwsSolutions pack) for the stack: what is acknowledged rather than fixed, and why.
 * Each acknowledgement names one rule and sits on the narrowest construct that covers it.
 * Everything else the pack checks is fixed in the stack (access logs, DLQs, TLS-only queues and
 * topic, PITR, per-function log permissions instead of AWSLambdaBasicExecutionRole, GSI ARNs by
 * name instead of `index/*`, encrypted alarm topic).
 *
 * `npx cdk synth` runs the pack (infra/app.ts) and fails on any unacknowledged finding;
 * test/infra/nag.test.ts asserts there are none.
 */
import { Validations } from "aws-cdk-lib";
import type { PolicyViolation } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import type { IConstruct } from "constructs";
import type { CfnElement } from "aws-cdk-lib";
import { UPLOAD_FUNCTIONS, UPLOAD_READERS, UPLOADS_PREFIX, type ConversaStack } from "./stack.ts";

export interface NagAcknowledgement {
  readonly id: string;
  readonly reason: string;
  /** Where it is applied, for the README and the test. */
  readonly on: string;
}

export const NAG_ACKNOWLEDGEMENTS = {
  lambdaRuntime: {
    id: "AwsSolutions-L1",
    on: "each Lambda function",
    reason:
      "nodejs22.x is the project's pinned runtime: the bundles target node22 (infra/build.ts) and the cold-start budget was measured on it; moving to a newer runtime is a deliberate, tested change, not a synth-time default.",
  },
  apiAuthorization: {
    id: "AwsSolutions-APIG4",
    on: "the HTTP API (its routes)",
    reason:
      "Authorization is done in each route's Lambda by API key (api_access_token, hashed lookup in DynamoDB, middy auth middleware) and the route table marks the public checkout routes as public by design; an API Gateway authorizer would add a second lookup per request without adding a check.",
  },
  uploadObjects: {
    id: "AwsSolutions-IAM5",
    on: "the roles of the functions that write or sign upload and message files, for the object ARN `<uploads bucket>/accounts/*` only",
    reason:
      "Each upload or message file gets a new object key accounts/<account>/uploads|conversations/.../<random>/<file> (shared/domain/uploads.ts, shared/domain/conversations/attachments.ts), so these functions must put, and sign GETs for, keys that do not exist yet: the wildcard is limited to the accounts/ prefix, and the actions to s3:PutObject and s3:GetObject (s3:GetObject only for the functions that only sign).",
  },
  accessLogBucket: {
    id: "AwsSolutions-S1",
    on: "the uploads bucket's access-log bucket",
    reason:
      "It is the server-access-log target of the uploads bucket; logging the log bucket into itself (or another bucket) would only log the log writes.",
  },
} as const satisfies Record<string, NagAcknowledgement>;

/** Applies every acknowledgement of the list above to its construct(s). */
export function acknowledgeNagFindings(stack: ConversaStack): void {
  for (const fn of stack.functions.values()) acknowledge(fn, NAG_ACKNOWLEDGEMENTS.lambdaRuntime);
  acknowledge(stack.api, NAG_ACKNOWLEDGEMENTS.apiAuthorization);
  acknowledge(stack.uploadsAccessLogs, NAG_ACKNOWLEDGEMENTS.accessLogBucket);
  const objects = `Resource::<${stack.getLogicalId(stack.uploadsBucket.node.defaultChild as CfnElement)}.Arn>/${UPLOADS_PREFIX}*`;
  for (const name of [...UPLOAD_FUNCTIONS, ...UPLOAD_READERS]) {
    const fn = stack.functions.get(name);
    if (fn?.role) acknowledge(fn.role, NAG_ACKNOWLEDGEMENTS.uploadObjects, objects);
  }
}

/** `appliesTo`: one granular finding (e.g. an IAM5 resource) instead of the whole rule. */
function acknowledge(scope: IConstruct, ack: NagAcknowledgement, appliesTo?: string): void {
  Validations.of(scope).acknowledge({ id: appliesTo ? `${ack.id}[${appliesTo}]` : ack.id, reason: ack.reason });
}

/** Registers the pack on the app: `app.synth()` then fails on unacknowledged findings. */
export function addNagChecks(app: IConstruct): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}

/** The pack's unacknowledged findings (errors and warnings) on a synthesized scope. */
export function nagViolations(scope: IConstruct): PolicyViolation[] {
  return new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(scope).violations;
}
