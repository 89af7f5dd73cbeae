/**
 * cdk-nag (AwsSolutions pack) for the stack. What is acknowledged rather than fixed sits with the
 * construct that makes the resource, with its reason (stack.ts: every function and the HTTP API;
 * uploads.ts: the upload objects and the access-log bucket). Each acknowledgement names one rule
 * and sits on the narrowest construct that covers it. Everything else the pack checks is fixed in
 * the stack (access logs, DLQs, TLS-only queues and topic, PITR, per-function log permissions
 * instead of AWSLambdaBasicExecutionRole, GSI ARNs by name instead of `index/*`, encrypted alarm
 * topic).
 *
 * `npx cdk synth` runs the pack (infra/app.ts) and fails on any unacknowledged finding;
 * test/infra/operate.test.ts asserts there are none.
 */
import { Validations } from "aws-cdk-lib";
import type { PolicyViolation } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import type { IConstruct } from "constructs";

export interface NagAcknowledgement {
  readonly id: string;
  readonly reason: string;
  /** Where it is applied, in words. */
  readonly on: string;
}

/** Acknowledges one rule on a construct; `appliesTo`: one granular finding (e.g. an IAM5 resource) instead of the whole rule. */
export function acknowledge(scope: IConstruct, ack: NagAcknowledgement, appliesTo?: string): void {
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
