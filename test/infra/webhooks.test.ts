/** The webhook pipeline in the synthesized stack: Pipe, bus, rule, queues, DLQs, triggers. */
import { App } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../infra/stack.ts";
import { QUEUEING_FNS } from "../../infra/webhooks.ts";
import { EVENT_NAMES } from "../../shared/events/catalog.ts";
import { PIPE_FILTER_PATTERN, PIPE_INPUT_TEMPLATE } from "../../shared/events/envelope.ts";
import { PACING_RECEIVES, parseSchedule } from "../../shared/delivery/schedule.ts";
import { workers, type WorkerSettings } from "../../shared/workers.ts";
import { stubBundles, type StubBundles } from "../support/stub-bundles.ts";

type Res = { Type: string; Properties: Record<string, any> };
let stubs: StubBundles | undefined;
let t: Template;
let custom: Template;

const synth = (context: Record<string, unknown>) => Template.fromStack(buildApp({ app: new App({ context }), assetsDir: stubs!.dir }).stack);
const ofType = (tpl: Template, type: string) => tpl.findResources(type) as Record<string, Res>;
const idOf = (v: any): string => v?.Ref ?? v?.["Fn::GetAtt"]?.[0];
const fnId = (tpl: Template, file: string) => {
  const hit = Object.entries(ofType(tpl, "AWS::Lambda::Function")).find(([, r]) => r.Properties.Description?.endsWith(`functions/${file}.ts`));
  if (!hit) throw new Error(`no function ${file}`);
  return hit[0];
};
/** Queue id -> its redrive policy. */
const redrive = (tpl: Template, queueId: string) => ofType(tpl, "AWS::SQS::Queue")[queueId]!.Properties.RedrivePolicy;

beforeAll(async () => {
  stubs = stubBundles("conversa-wh-infra-");
  t = synth({ stage: "production" });
  custom = synth({ stage: "production", WEBHOOK_RETRY_SCHEDULE: "1,2", WEBHOOK_TIMEOUT: "9" });
}, 120_000);

afterAll(async () => {
  stubs?.remove();
});

describe("outbox pipe", () => {
  it("reads the main table's stream from LATEST, keeps only outbox inserts, and targets the custom bus", () => {
    const pipes = Object.values(ofType(t, "AWS::Pipes::Pipe"));
    expect(pipes).toHaveLength(1);
    const p = pipes[0]!.Properties;
    const [tableId] = Object.entries(ofType(t, "AWS::DynamoDB::Table")).find(([, r]) => r.Properties.StreamSpecification)!;
    expect(p.Source).toEqual({ "Fn::GetAtt": [tableId, "StreamArn"] });
    expect(p.SourceParameters.DynamoDBStreamParameters.StartingPosition).toBe("LATEST");
    expect(JSON.parse(p.SourceParameters.FilterCriteria.Filters[0].Pattern)).toEqual(PIPE_FILTER_PATTERN);
    const [busId] = Object.keys(ofType(t, "AWS::Events::EventBus"));
    expect(idOf(p.Target)).toBe(busId);
    expect(p.TargetParameters).toEqual({
      InputTemplate: PIPE_INPUT_TEMPLATE,
      EventBridgeEventBusParameters: { DetailType: "$.dynamodb.NewImage.event.S", Source: "conversa" },
    });
  });

  it("lets the pipe's role read only the stream and put events only on the bus", () => {
    const pipe = Object.values(ofType(t, "AWS::Pipes::Pipe"))[0]!;
    const roleId = idOf(pipe.Properties.RoleArn);
    const role = ofType(t, "AWS::IAM::Role")[roleId]!;
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain("pipes.amazonaws.com");
    const statements = Object.values(ofType(t, "AWS::IAM::Policy"))
      .filter((p) => (p.Properties.Roles as unknown[]).some((r) => idOf(r) === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const actions = statements.flatMap((s) => [s.Action].flat()).sort();
    expect(actions).toEqual(["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams", "events:PutEvents"]);
  });
});

describe("bus and rule", () => {
  it("routes exactly the 12 webhook events from source conversa to the events queue", () => {
    const rules = Object.values(ofType(t, "AWS::Events::Rule"));
    expect(rules).toHaveLength(1);
    const r = rules[0]!.Properties;
    expect(r.EventPattern).toEqual({ source: ["conversa"], "detail-type": [...EVENT_NAMES] });
    expect(r.EventPattern["detail-type"]).not.toContain("subscription_created");
    expect(idOf(r.EventBusName)).toBe(Object.keys(ofType(t, "AWS::Events::EventBus"))[0]);
    const eventsQueueId = idOf(r.Targets[0].Arn);
    expect(redrive(t, eventsQueueId).maxReceiveCount).toBe(5);
  });
});

describe("queues and workers", () => {
  it("has four encrypted queues, each work queue with its DLQ", () => {
    const queues = ofType(t, "AWS::SQS::Queue");
    expect(Object.keys(queues)).toHaveLength(4);
    for (const q of Object.values(queues)) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    const withDlq = Object.values(queues).filter((q) => q.Properties.RedrivePolicy);
    expect(withDlq).toHaveLength(2);
    const dlqIds = withDlq.map((q) => idOf(q.Properties.RedrivePolicy.deadLetterTargetArn));
    expect(new Set(dlqIds).size).toBe(2);
    for (const id of dlqIds) expect(queues[id]!.Properties.RedrivePolicy).toBeUndefined();
  });

  it("triggers fan-out and delivery from their queues with ReportBatchItemFailures", () => {
    const mappings = Object.values(ofType(t, "AWS::Lambda::EventSourceMapping"));
    expect(mappings).toHaveLength(2);
    const byFn = new Map(mappings.map((m) => [idOf(m.Properties.FunctionName), m.Properties]));
    const fanout = byFn.get(fnId(t, "webhooks-fanout"))!;
    const deliver = byFn.get(fnId(t, "webhooks-deliver"))!;
    for (const m of [fanout, deliver]) expect(m).toMatchObject({ FunctionResponseTypes: ["ReportBatchItemFailures"], BatchSize: 10 });
    const rule = Object.values(ofType(t, "AWS::Events::Rule"))[0]!;
    expect(idOf(fanout.EventSourceArn)).toBe(idOf(rule.Properties.Targets[0].Arn));
    expect(idOf(deliver.EventSourceArn)).not.toBe(idOf(fanout.EventSourceArn));
  });

  it("sizes the deliveries queue from the schedule: maxReceiveCount, retention, visibility over the timeout", () => {
    const check = (tpl: Template, attempts: number, timeout: number) => {
      const deliverId = fnId(tpl, "webhooks-deliver");
      const m = Object.values(ofType(tpl, "AWS::Lambda::EventSourceMapping")).find((x) => idOf(x.Properties.FunctionName) === deliverId)!;
      const q = ofType(tpl, "AWS::SQS::Queue")[idOf(m.Properties.EventSourceArn)]!.Properties;
      expect(q.RedrivePolicy.maxReceiveCount).toBe(attempts + 3 + PACING_RECEIVES);
      const fn = ofType(tpl, "AWS::Lambda::Function")[deliverId]!.Properties;
      expect(fn.Timeout).toBe(timeout + 20);
      expect(q.VisibilityTimeout).toBeGreaterThanOrEqual(fn.Timeout);
      expect(q.MessageRetentionPeriod).toBeGreaterThan(4 * 86400);
    };
    check(t, 8, 5);
    check(custom, 3, 9);
  });

  it.each([
    ["default context", () => t, { retrySchedule: parseSchedule(undefined), webhookTimeoutSeconds: 5 }],
    ["WEBHOOK_RETRY_SCHEDULE=1,2 WEBHOOK_TIMEOUT=9", () => custom, { retrySchedule: [1, 2], webhookTimeoutSeconds: 9 }],
  ] as const)("makes exactly the worker table's mappings, queues and DLQs (%s)", (_name, tpl, settings: WorkerSettings) => {
    const template = tpl();
    const mappings = Object.values(ofType(template, "AWS::Lambda::EventSourceMapping"));
    expect(mappings).toHaveLength(workers.length);
    const queues = ofType(template, "AWS::SQS::Queue");
    expect(Object.keys(queues)).toHaveLength(workers.length * 2);
    for (const w of workers) {
      const id = fnId(template, w.fn);
      const m = mappings.find((x) => idOf(x.Properties.FunctionName) === id)!.Properties;
      expect(m, w.fn).toMatchObject({ BatchSize: w.batchSize, FunctionResponseTypes: ["ReportBatchItemFailures"] });
      const q = queues[idOf(m.EventSourceArn)]!.Properties;
      expect(q.VisibilityTimeout, w.fn).toBe(w.visibilityTimeoutSeconds(settings));
      expect(q.RedrivePolicy.maxReceiveCount, w.fn).toBe(w.maxReceiveCount(settings));
      expect(q.MessageRetentionPeriod, w.fn).toBe("retentionSeconds" in w ? w.retentionSeconds(settings) : undefined);
      const dlq = queues[idOf(q.RedrivePolicy.deadLetterTargetArn)]!.Properties;
      expect(dlq.MessageRetentionPeriod, w.fn).toBe(w.dlqRetentionSeconds);
      const fn = ofType(template, "AWS::Lambda::Function")[id]!.Properties;
      if ("timeoutSeconds" in w) expect(fn.Timeout, w.fn).toBe(w.timeoutSeconds(settings));
      expect(q.VisibilityTimeout, w.fn).toBeGreaterThanOrEqual(fn.Timeout);
    }
  });

  it("gives the queue URL to the workers and the queueing routes, and send rights only to fan-out and those routes", () => {
    for (const file of ["webhooks-fanout", "webhooks-deliver", ...QUEUEING_FNS]) {
      const vars = ofType(t, "AWS::Lambda::Function")[fnId(t, file)]!.Properties.Environment.Variables;
      expect(vars.DELIVERY_QUEUE_URL, file).toBeDefined();
    }
    const senders = Object.values(ofType(t, "AWS::IAM::Policy"))
      .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes("sqs:SendMessage"))
      .flatMap((p) => (p.Properties.Roles as unknown[]).map(idOf));
    const roleOf = (file: string) => idOf(ofType(t, "AWS::Lambda::Function")[fnId(t, file)]!.Properties.Role);
    expect(senders.sort()).toEqual([roleOf("webhooks-fanout"), ...QUEUEING_FNS.map(roleOf)].sort());
    t.hasResourceProperties("AWS::IAM::Policy", {
      Roles: [{ Ref: roleOf("webhooks-deliver") }],
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: Match.arrayWith(["sqs:ChangeMessageVisibility"]) })]) },
    });
  });
});
