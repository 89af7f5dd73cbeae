/**
 * Operating the stack: cdk-nag's AwsSolutions pack with zero unacknowledged findings,
 * the stages, the alarms with their topic, and the dashboard. One synth per stage, over stub
 * bundles (the code does not matter here; test/infra/stack.test.ts synthesizes the real ones).
 */
import { App, Stack, Validations } from "aws-cdk-lib";
import { Annotations, Match, Template } from "aws-cdk-lib/assertions";
import { Queue } from "aws-cdk-lib/aws-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { THROTTLE_COUNTER_ACTIONS, WORKER_TABLE_ACTIONS } from "../../infra/grants.ts";
import { nagViolations } from "../../infra/nag.ts";
import { ACCESS_LOG_FIELDS, ALARM_DEFAULTS, MAX_METRICS_PER_ALARM } from "../../infra/observability.ts";
import { buildApp, UPLOAD_FUNCTIONS, UPLOAD_READERS } from "../../infra/stack.ts";
import type { ConversaStack, Stage } from "../../infra/stack.ts";
import { DELIVER_FN, FANOUT_FN } from "../../infra/webhooks.ts";
import { mainTable } from "../../shared/db/table.ts";
import { stubBundles, type StubBundles } from "../support/stub-bundles.ts";

type Res = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
const ALARM_EMAIL = "ops@example.com";

let stubs: StubBundles | undefined;
const stacks = new Map<Stage, ConversaStack>();
const templates = new Map<Stage, Template>();
const tpl = (stage: Stage): Template => templates.get(stage)!;
/** Resources of a type; for Lambda functions only ours (not CDK's bucket auto-delete provider in development). */
const ofType = (t: Template, type: string): Record<string, Res> => {
  const all = t.findResources(type) as Record<string, Res>;
  if (type !== "AWS::Lambda::Function") return all;
  return Object.fromEntries(Object.entries(all).filter(([, f]) => String(f.Properties.Description ?? "").startsWith("Conversa ")));
};
const idOf = (v: any): string => v?.Ref ?? v?.["Fn::GetAtt"]?.[0];
const fnVars = (t: Template) =>
  Object.values(ofType(t, "AWS::Lambda::Function")).map((f) => f.Properties.Environment.Variables as Record<string, unknown>);
/** Alarms by the last part of their logical id prefix (ObservabilityEventsDlqNotEmptyXXXX -> EventsDlqNotEmpty). */
function alarms(t: Template): Map<string, Res> {
  const out = new Map<string, Res>();
  for (const [id, r] of Object.entries(ofType(t, "AWS::CloudWatch::Alarm"))) out.set(id.replace(/^Observability/, "").replace(/[0-9A-F]{8}$/, ""), r);
  return out;
}
const alarm = (t: Template, name: string): Res => {
  const a = alarms(t).get(name);
  if (!a) throw new Error(`no alarm ${name}`);
  return a;
};

function synth(context: Record<string, unknown>): { stack: ConversaStack; template: Template } {
  const { stack } = buildApp({ app: new App({ context }), assetsDir: stubs!.dir });
  return { stack, template: Template.fromStack(stack) };
}

beforeAll(async () => {
  stubs = stubBundles("conversa-operate-");
  const prod = synth({ stage: "production", alarmEmail: ALARM_EMAIL, THROTTLE_LIMIT: "4000" });
  const dev = synth({ stage: "development", WEBHOOK_TIMEOUT: "7", alarmDeliveryFailures: "3", alarm5xxPercent: 2.5 });
  stacks.set("production", prod.stack).set("development", dev.stack);
  templates.set("production", prod.template).set("development", dev.template);
}, 120_000);

afterAll(async () => {
  stubs?.remove();
});

describe("cdk-nag (AwsSolutions)", () => {
  it.each(["production", "development"] as const)("has no unacknowledged finding, error or warning (%s)", (stage) => {
    const found = nagViolations(stacks.get(stage)!).map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(", ")}`);
    expect(found).toEqual([]);
  });

  it.each(["production", "development"] as const)("synthesizes without CDK errors or warnings (%s)", (stage) => {
    const annotations = Annotations.fromStack(stacks.get(stage)!);
    expect(annotations.findError("*", Match.anyValue())).toEqual([]);
    expect(annotations.findWarning("*", Match.anyValue())).toEqual([]);
  });

  it("reports what it is not told to accept (the check can fail)", () => {
    const stack = new Stack(new App(), "Probe");
    new Queue(stack, "Plain");
    const acked = new Queue(stack, "Acked", { enforceSSL: true });
    Validations.of(acked).acknowledge({ id: "AwsSolutions-SQS3", reason: "probe: acknowledged on this queue only" });
    Template.fromStack(stack);
    const rules = nagViolations(stack).flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} ${r.constructPath}`));
    expect(rules).toEqual(expect.arrayContaining(["AwsSolutions-SQS3 Probe/Plain/Resource", "AwsSolutions-SQS4 Probe/Plain/Resource"]));
    expect(rules.filter((r) => r.includes("Probe/Acked"))).toEqual([]);
  });

  it("names the rule and a concrete reason in every acknowledgement", () => {
    // Arrange
    const key = Validations.ACKNOWLEDGED_RULES_METADATA_KEY;
    // Act: every acknowledgement on the stack's constructs (aws-cdk-lib adds some of its own rules).
    const acks = stacks
      .get("production")!
      .node.findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === key).flatMap((m) => Object.entries(m.data as Record<string, string>)))
      .filter(([id]) => id.includes("AwsSolutions-"));
    // Assert
    expect(new Set(acks.map(([id]) => /AwsSolutions-[A-Z0-9]+/.exec(id)![0]))).toEqual(
      new Set(["AwsSolutions-L1", "AwsSolutions-APIG4", "AwsSolutions-IAM5", "AwsSolutions-S1"]),
    );
    for (const [id, reason] of acks) expect(reason.length, id).toBeGreaterThan(80);
  });

  it("acknowledges on the resources, never on the whole stack", () => {
    const stack = stacks.get("production")!;
    const key = Validations.ACKNOWLEDGED_RULES_METADATA_KEY;
    expect(stack.node.metadata.filter((m) => m.type === key)).toEqual([]);
    const ackedFns = [...stack.functions.values()].filter((f) => f.node.metadata.some((m) => m.type === key && JSON.stringify(m.data).includes("AwsSolutions-L1")));
    expect(ackedFns).toHaveLength(stack.functions.size);
  });
});

describe("least privilege", () => {
  it("grants no wildcard resource and no managed policy to the functions (but upload objects under accounts/)", () => {
    const t = tpl("production");
    const uploadsId = Object.keys(ofType(t, "AWS::S3::Bucket")).find((id) => id.startsWith("UploadsBucket"))!;
    const uploadObjects = JSON.stringify({ "Fn::Join": ["", [{ "Fn::GetAtt": [uploadsId, "Arn"] }, "/accounts/*"]] });
    const wildcards: string[] = [];
    for (const p of Object.values(ofType(t, "AWS::IAM::Policy"))) {
      for (const s of p.Properties.PolicyDocument.Statement as { Resource: unknown }[]) {
        const resources = [s.Resource].flat().map((r) => JSON.stringify(r));
        wildcards.push(...resources.filter((r) => r === '"*"' || r.includes("/index/*") || r.includes("/*\"")));
      }
    }
    // The one acknowledged wildcard (infra/uploads.ts): new upload and message-file object keys, on the functions that write or sign them.
    expect(wildcards).toEqual(Array.from({ length: UPLOAD_FUNCTIONS.length + UPLOAD_READERS.length }, () => uploadObjects));
    for (const r of Object.values(ofType(t, "AWS::IAM::Role"))) expect(r.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it("lets each function write only its own log group", () => {
    const t = tpl("production");
    const policies = Object.values(ofType(t, "AWS::IAM::Policy"));
    for (const f of Object.values(ofType(t, "AWS::Lambda::Function"))) {
      const role = idOf(f.Properties.Role);
      const group = idOf(f.Properties.LoggingConfig.LogGroup);
      const logStatements = policies
        .filter((p) => (p.Properties.Roles as unknown[]).some((r) => idOf(r) === role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((s) => [s.Action].flat().some((a) => a.startsWith("logs:")));
      expect(logStatements).toHaveLength(1);
      expect(idOf(logStatements[0]!.Resource)).toBe(group);
    }
  });

  it("gives the queue workers only the table actions their repositories call, on the table only", () => {
    const t = tpl("production");
    const policies = Object.values(ofType(t, "AWS::IAM::Policy"));
    for (const fn of [FANOUT_FN, DELIVER_FN]) {
      const [, f] = Object.entries(ofType(t, "AWS::Lambda::Function")).find(([, r]) => r.Properties.Description.endsWith(`functions/${fn}.ts`))!;
      const role = idOf(f.Properties.Role);
      const dynamo = policies
        .filter((p) => (p.Properties.Roles as unknown[]).some((r) => idOf(r) === role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((s) => [s.Action].flat().some((a) => a.startsWith("dynamodb:")));
      const onThrottle = (s: { Resource: unknown }) => JSON.stringify(s.Resource).includes("ThrottleTable");
      const main = dynamo.filter((s) => !onThrottle(s));
      const throttle = dynamo.filter(onThrottle);
      expect(main.flatMap((s) => [s.Action].flat()).sort()).toEqual([...WORKER_TABLE_ACTIONS[fn]!].sort());
      expect(JSON.stringify(main.map((s) => s.Resource))).not.toContain("/index/");
      // The delivery worker paces webhooks through the limiter's counters: atomic ADDs only.
      expect(throttle.flatMap((s) => [s.Action].flat())).toEqual(fn === DELIVER_FN ? [...THROTTLE_COUNTER_ACTIONS] : []);
    }
  });

  it("names each GSI for the routes' queries", () => {
    const statements = Object.values(ofType(tpl("production"), "AWS::IAM::Policy")).flatMap((p) => p.Properties.PolicyDocument.Statement as { Resource: unknown }[]);
    const indexResources = statements.flatMap((s) => [s.Resource].flat()).map((r) => JSON.stringify(r)).filter((r) => r.includes("/index/"));
    expect(indexResources.length).toBeGreaterThan(0);
    for (const r of indexResources) expect(mainTable.gsis.some((g) => r.includes(`/index/${g.name}`))).toBe(true);
  });
});

describe("stages", () => {
  it.each([
    ["production", "Retain", "production"],
    ["development", "Delete", "development"],
  ] as const)("%s: tables, logs and the topic key are %s; APP_ENV=%s; its own metrics namespace", (stage, policy, appEnv) => {
    const t = tpl(stage);
    for (const type of ["AWS::DynamoDB::Table", "AWS::Logs::LogGroup", "AWS::KMS::Key", "AWS::SQS::Queue"]) {
      for (const r of Object.values(ofType(t, type))) expect(r.DeletionPolicy, type).toBe(policy);
    }
    for (const vars of fnVars(t)) expect(vars).toMatchObject({ APP_ENV: appEnv, METRICS_NAMESPACE: `Conversa/${stage}` });
  });

  it("passes a config variable given as context through, per stage", () => {
    for (const vars of fnVars(tpl("production"))) expect(vars.THROTTLE_LIMIT).toBe("4000");
    for (const vars of fnVars(tpl("development"))) {
      expect(vars.WEBHOOK_TIMEOUT).toBe("7");
      expect(vars).not.toHaveProperty("THROTTLE_LIMIT");
    }
  });

  it("takes the metrics namespace from context, and the alarms follow it", () => {
    const { template } = synth({ stage: "development", METRICS_NAMESPACE: "Acme/dev" });
    for (const vars of fnVars(template)) expect(vars.METRICS_NAMESPACE).toBe("Acme/dev");
    expect(alarm(template, "DeliveriesFailing").Properties.Namespace).toBe("Acme/dev");
  });

  it("rejects a bad alarm context", () => {
    expect(() => synth({ stage: "development", alarmEmail: "not-an-address" })).toThrow(/alarmEmail/);
    expect(() => synth({ stage: "development", alarm5xxPercent: "-1" })).toThrow(/alarm5xxPercent/);
  });
});

describe("API access log", () => {
  it("logs one JSON line per request to its log group: request id, ip, route, status, latency; no headers", () => {
    const t = tpl("production");
    const stage = Object.values(ofType(t, "AWS::ApiGatewayV2::Stage"))[0]!;
    expect(stage.Properties).toMatchObject({ StageName: "$default", AutoDeploy: true });
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format).toEqual(ACCESS_LOG_FIELDS);
    expect(format).toMatchObject({ requestId: "$context.requestId", ip: "$context.identity.sourceIp", routeKey: "$context.routeKey", status: "$context.status", latency: "$context.responseLatency" });
    expect(JSON.stringify(format)).not.toMatch(/header|authorizer|querystring/i);
    expect(ofType(t, "AWS::Logs::LogGroup")[idOf(stage.Properties.AccessLogSettings.DestinationArn)]).toBeDefined();
  });
});

describe("alarms and topic", () => {
  it("has the alarm set, each notifying the topic on ALARM and OK", () => {
    const t = tpl("production");
    const names = [...alarms(t).keys()].map((n) => n.replace(/\d+$/, "")).sort();
    expect([...new Set(names)]).toEqual(
      ["Api5xxRate", "DeliveriesDlqNotEmpty", "DeliveriesFailing", "DynamoThrottlesMain", "DynamoThrottlesThrottle", "EventsDlqNotEmpty", "LambdaErrors", "LambdaThrottles", "RateLimiterStoreErrors"].sort(),
    );
    const [topicId] = Object.keys(ofType(t, "AWS::SNS::Topic"));
    for (const [name, a] of alarms(t)) {
      expect(a.Properties.AlarmActions.map(idOf), name).toEqual([topicId]);
      expect(a.Properties.OKActions.map(idOf), name).toEqual([topicId]);
      expect(a.Properties.AlarmDescription.length, name).toBeGreaterThan(20);
    }
  });

  it("alarms when either dead-letter queue holds a message", () => {
    const t = tpl("production");
    const queues = ofType(t, "AWS::SQS::Queue");
    const dlqIds = Object.values(queues).map((q) => q.Properties.RedrivePolicy?.deadLetterTargetArn).filter(Boolean).map(idOf).sort();
    expect(dlqIds).toHaveLength(2);
    const watched = ["EventsDlqNotEmpty", "DeliveriesDlqNotEmpty"].map((n) => {
      const p = alarm(t, n).Properties;
      expect(p).toMatchObject({ MetricName: "ApproximateNumberOfMessagesVisible", Namespace: "AWS/SQS", Threshold: 0, ComparisonOperator: "GreaterThanThreshold" });
      return p.Dimensions[0].Value["Fn::GetAtt"][0] as string;
    });
    expect(watched.sort()).toEqual(dlqIds);
  });

  it("alarms on deliveries failing for good, with the default or the context threshold", () => {
    expect(alarm(tpl("production"), "DeliveriesFailing").Properties).toMatchObject({
      MetricName: "DeliveryFailed",
      Namespace: "Conversa/production",
      Statistic: "Sum",
      Period: 900,
      Threshold: ALARM_DEFAULTS.deliveryFailures,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
    expect(alarm(tpl("development"), "DeliveriesFailing").Properties.Threshold).toBe(3);
  });

  it("alarms on the API's 5xx share of requests", () => {
    const p = alarm(tpl("development"), "Api5xxRate").Properties;
    expect(p.Threshold).toBe(2.5);
    const [expr, ...stats] = p.Metrics as { Expression?: string; MetricStat?: { Metric: { MetricName: string; Namespace: string } } }[];
    expect(expr!.Expression).toMatch(/100 \* errors \/ requests/);
    expect(stats.map((s) => `${s.MetricStat!.Metric.Namespace} ${s.MetricStat!.Metric.MetricName}`).sort()).toEqual(["AWS/ApiGateway 5xx", "AWS/ApiGateway Count"]);
  });

  it.each(["Errors", "Throttles"])("sums Lambda %s over every function exactly once, at most 10 metrics per alarm", (metric) => {
    const t = tpl("production");
    const fnIds = Object.keys(ofType(t, "AWS::Lambda::Function")).sort();
    const covered: string[] = [];
    for (const [name, a] of alarms(t)) {
      if (!name.startsWith(`Lambda${metric}`)) continue;
      const stats = (a.Properties.Metrics as { MetricStat?: any }[]).filter((m) => m.MetricStat);
      expect(stats.length).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
      for (const s of stats) {
        expect(s.MetricStat.Metric.MetricName).toBe(metric);
        covered.push(idOf(s.MetricStat.Metric.Dimensions[0].Value));
      }
    }
    expect(covered.sort()).toEqual(fnIds);
  });

  it("alarms on read and write throttle events of both tables and every GSI", () => {
    const t = tpl("production");
    const main = alarm(t, "DynamoThrottlesMain").Properties.Metrics as { MetricStat?: any }[];
    const dims = main.filter((m) => m.MetricStat).map((m) => `${m.MetricStat.Metric.MetricName} ${m.MetricStat.Metric.Dimensions.find((d: any) => d.Name === "GlobalSecondaryIndexName")?.Value ?? "table"}`);
    expect(dims.sort()).toEqual(["table", ...mainTable.gsis.map((g) => g.name)].flatMap((x) => [`ReadThrottleEvents ${x}`, `WriteThrottleEvents ${x}`]).sort());
    const throttle = (alarm(t, "DynamoThrottlesThrottle").Properties.Metrics as { MetricStat?: any }[]).filter((m) => m.MetricStat);
    expect(throttle.map((m) => m.MetricStat.Metric.MetricName).sort()).toEqual(["ReadThrottleEvents", "WriteThrottleEvents"]);
  });

  it("alarms on rate limiter store errors of every rule and mode", () => {
    const [q] = alarm(tpl("production"), "RateLimiterStoreErrors").Properties.Metrics as { Expression: string; Period: number }[];
    expect(q).toMatchObject({ Expression: 'SELECT SUM(RateLimiterStoreError) FROM SCHEMA("Conversa/production", Mode, Rule)', Period: 300 });
  });

  it("encrypts the topic with a rotated key CloudWatch may use, TLS only", () => {
    const t = tpl("production");
    const [topic] = Object.values(ofType(t, "AWS::SNS::Topic"));
    const [keyId, key] = Object.entries(ofType(t, "AWS::KMS::Key"))[0]!;
    expect(idOf(topic!.Properties.KmsMasterKeyId)).toBe(keyId);
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(JSON.stringify(key.Properties.KeyPolicy)).toContain("cloudwatch.amazonaws.com");
    const policy = Object.values(ofType(t, "AWS::SNS::TopicPolicy"))[0]!;
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });

  it("subscribes alarmEmail when given, nobody otherwise", () => {
    expect(Object.values(ofType(tpl("production"), "AWS::SNS::Subscription")).map((s) => s.Properties)).toEqual([
      expect.objectContaining({ Protocol: "email", Endpoint: ALARM_EMAIL }),
    ]);
    expect(ofType(tpl("development"), "AWS::SNS::Subscription")).toEqual({});
  });
});

describe("dashboard", () => {
  it("shows the alarms and the metrics behind them", () => {
    const t = tpl("production");
    const [dash] = Object.values(ofType(t, "AWS::CloudWatch::Dashboard"));
    expect(dash!.Properties.DashboardName).toBe("Conversa-production");
    const body = JSON.stringify(dash!.Properties.DashboardBody);
    for (const needle of ["DeliverySucceeded", "DeliveryRetried", "DeliveryFailed", "DeliveryLatency", "Http5xx", "Throttled", "RateLimiterStoreError", "ApproximateNumberOfMessagesVisible", "ThrottleEvents", "AWS/ApiGateway"]) {
      expect(body, needle).toContain(needle);
    }
    expect(body).toMatch(/\\"type\\":\\"alarm\\"/);
    for (const a of Object.keys(ofType(t, "AWS::CloudWatch::Alarm"))) expect(body, a).toContain(a);
  });
});
