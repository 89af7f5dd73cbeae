/**
 * Alarms, their SNS topic and a CloudWatch dashboard (README "Operate" says what each alarm
 * means and what to do):
 *
 * - EventsDlqNotEmpty / DeliveriesDlqNotEmpty: a message reached a dead-letter queue;
 * - DeliveriesFailing: deliveries given up (DeliveryFailed, EMF from the delivery worker) above
 *   `alarmDeliveryFailures` per 15 minutes;
 * - Api5xxRate: the HTTP API's 5xx share of requests above `alarm5xxPercent` (API Gateway's own
 *   metrics, so crashes and timeouts that never reach the error middleware count too);
 * - LambdaErrors<n> / LambdaThrottles<n>: metric-math sums over the functions, 10 per alarm
 *   (an alarm's expression takes at most 10 metrics);
 * - DynamoThrottles<table>: read and write throttle events of the table and each GSI;
 * - RateLimiterStoreErrors: the rate limiter could not reach its table (EMF, every rule and mode,
 *   by a Metrics Insights query).
 *
 * Every alarm notifies the topic on ALARM and on OK. The topic is always there (KMS-encrypted
 * with its own key, which CloudWatch may use; TLS only); `-c alarmEmail=ops@example.com` subscribes
 * an address.
 */
import { Duration } from "aws-cdk-lib";
import type { RemovalPolicy } from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import { LogGroupLogDestination } from "aws-cdk-lib/aws-apigatewayv2";
import type { HttpApi, IAccessLogSettings } from "aws-cdk-lib/aws-apigatewayv2";
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import type { IMetric } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Key } from "aws-cdk-lib/aws-kms";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { ILogGroup } from "aws-cdk-lib/aws-logs";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { Queue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import type { Node } from "constructs";
import type { TableDef } from "../shared/db/table.ts";

/** Context knobs (`-c alarmEmail=...`) and their defaults. */
export const ALARM_DEFAULTS = { deliveryFailures: 10, api5xxPercent: 1 } as const;
/** Below this many requests in 5 minutes the 5xx rate does not alarm (one failure of 3 requests is not an outage). */
export const API_5XX_MIN_REQUESTS = 20;
/** Metrics per alarm expression (CloudWatch's limit). */
export const MAX_METRICS_PER_ALARM = 10;

/** The HTTP API's access log line: JSON, no headers, no query string, no body. */
export const ACCESS_LOG_FIELDS = {
  requestId: "$context.requestId",
  ip: "$context.identity.sourceIp",
  requestTime: "$context.requestTime",
  routeKey: "$context.routeKey",
  path: "$context.path",
  status: "$context.status",
  latency: "$context.responseLatency",
  integrationLatency: "$context.integrationLatency",
  integrationError: "$context.integrationErrorMessage",
  responseLength: "$context.responseLength",
  userAgent: "$context.identity.userAgent",
} as const;

export function accessLogSettings(group: ILogGroup): IAccessLogSettings {
  return { destination: new LogGroupLogDestination(group), format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)) };
}

export interface ObservabilityContext {
  readonly alarmEmail?: string | undefined;
  readonly deliveryFailures: number;
  readonly api5xxPercent: number;
}

/** `alarmEmail`, `alarmDeliveryFailures`, `alarm5xxPercent` from the app's context. */
export function observabilityContext(node: Node): ObservabilityContext {
  const email: unknown = node.tryGetContext("alarmEmail");
  if (email !== undefined && (typeof email !== "string" || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email))) {
    throw new Error(`context "alarmEmail" must be an e-mail address, got ${JSON.stringify(email)}`);
  }
  return {
    alarmEmail: email as string | undefined,
    deliveryFailures: positive(node, "alarmDeliveryFailures", ALARM_DEFAULTS.deliveryFailures),
    api5xxPercent: positive(node, "alarm5xxPercent", ALARM_DEFAULTS.api5xxPercent),
  };
}

function positive(node: Node, key: string, dflt: number): number {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined) return dflt;
  const n = typeof raw === "number" ? raw : typeof raw === "string" && raw.trim() !== "" ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`context "${key}" must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

export interface ObservabilityProps extends ObservabilityContext {
  readonly stage: string;
  /** CloudWatch namespace of the functions' EMF metrics (METRICS_NAMESPACE). */
  readonly metricsNamespace: string;
  readonly api: HttpApi;
  readonly tables: readonly { readonly table: Table; readonly def: TableDef }[];
  readonly functions: ReadonlyMap<string, LambdaFunction>;
  readonly queues: { readonly eventsDlq: Queue; readonly deliveryDlq: Queue };
  readonly removalPolicy: RemovalPolicy;
}

const FIVE_MINUTES = Duration.minutes(5);

export class Observability extends Construct {
  readonly topic: Topic;
  readonly topicKey: Key;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const ns = props.metricsNamespace;
    this.topicKey = new Key(this, "AlarmTopicKey", {
      description: `Conversa ${props.stage}: encrypts the alarm topic`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    // CloudWatch publishes alarm notifications: it must be able to use the key.
    this.topicKey.grant(new ServicePrincipal("cloudwatch.amazonaws.com"), "kms:Decrypt", "kms:GenerateDataKey*");
    this.topic = new Topic(this, "AlarmTopic", { displayName: `Conversa ${props.stage} alarms`, masterKey: this.topicKey, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    // Dead-letter queues.
    const dlqDepth = (q: Queue) => q.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum" });
    const eventsDlq = dlqDepth(props.queues.eventsDlq);
    const deliveriesDlq = dlqDepth(props.queues.deliveryDlq);
    this.alarm("EventsDlqNotEmpty", eventsDlq, 0, "Events that failed fan-out 5 times are in the events DLQ: fix the cause, then replay (README, Operate).");
    this.alarm("DeliveriesDlqNotEmpty", deliveriesDlq, 0, "Deliveries that exhausted their retry schedule are in the deliveries DLQ: see the delivery log, then replay or drop.");

    // Deliveries (EMF from functions/webhooks-deliver.ts).
    const delivery = (name: string, statistic = "Sum") => new Metric({ namespace: ns, metricName: name, statistic, period: FIVE_MINUTES });
    const failed15 = new Metric({ namespace: ns, metricName: "DeliveryFailed", statistic: "Sum", period: Duration.minutes(15) });
    this.alarm("DeliveriesFailing", failed15, props.deliveryFailures, `At least ${props.deliveryFailures} deliveries failed for good in 15 minutes (receivers down or rejecting).`, { orEqual: true });

    // API 5xx rate (API Gateway's metrics for this API).
    const requests = props.api.metricCount({ period: FIVE_MINUTES, statistic: "Sum" });
    const errors5xx = props.api.metricServerError({ period: FIVE_MINUTES, statistic: "Sum" });
    const rate5xx = new MathExpression({
      expression: `IF(requests >= ${API_5XX_MIN_REQUESTS}, 100 * errors / requests, 0)`,
      usingMetrics: { requests, errors: errors5xx },
      period: FIVE_MINUTES,
      label: "5xx % of requests",
    });
    this.alarm("Api5xxRate", rate5xx, props.api5xxPercent, `More than ${props.api5xxPercent}% of requests answered 5xx in 2 of 3 five-minute periods.`, { periods: 3, datapoints: 2 });

    // Lambda errors and throttles, summed over the functions, 10 per alarm.
    const fns = [...props.functions.entries()].sort(([a], [b]) => a.localeCompare(b));
    const lambdaErrors: IMetric[] = [];
    const lambdaThrottles: IMetric[] = [];
    chunks(fns, MAX_METRICS_PER_ALARM).forEach((group, i) => {
      const names = group.map(([name]) => name).join(", ");
      // Ids unique across the groups: the dashboard graphs all groups together.
      const sum = (metric: (f: LambdaFunction) => Metric, label: string) =>
        new MathExpression({
          expression: "SUM(METRICS())",
          usingMetrics: Object.fromEntries(group.map(([, f], j) => [`${label}${i}_${j}`, metric(f)])),
          period: FIVE_MINUTES,
          label: `${label} ${i + 1}`,
        });
      const e = sum((f) => f.metricErrors({ period: FIVE_MINUTES, statistic: "Sum" }), "errors");
      const t = sum((f) => f.metricThrottles({ period: FIVE_MINUTES, statistic: "Sum" }), "throttles");
      lambdaErrors.push(e);
      lambdaThrottles.push(t);
      this.alarm(`LambdaErrors${i + 1}`, e, 0, `Invocation errors (crash, timeout, out of memory) in: ${names}.`);
      this.alarm(`LambdaThrottles${i + 1}`, t, 0, `Throttled invocations (account or reserved concurrency) in: ${names}.`);
    });

    // DynamoDB throttling, per table, table and GSIs.
    const dynamoThrottles: IMetric[] = [];
    for (const { table, def } of props.tables) {
      const label = def.stream ? "Main" : "Throttle";
      const metrics: Record<string, IMetric> = {};
      for (const kind of ["Read", "Write"] as const) {
        metrics[`${label.toLowerCase()}${kind}`] = table.metric(`${kind}ThrottleEvents`, { period: FIVE_MINUTES, statistic: "Sum" });
        def.gsis.forEach((g, j) => {
          metrics[`${label.toLowerCase()}${kind}${j}`] = table.metric(`${kind}ThrottleEvents`, {
            period: FIVE_MINUTES,
            statistic: "Sum",
            dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: g.name },
          });
        });
      }
      const sum = new MathExpression({ expression: "SUM(METRICS())", usingMetrics: metrics, period: FIVE_MINUTES, label: `${label} table throttle events` });
      dynamoThrottles.push(sum);
      this.alarm(`DynamoThrottles${label}`, sum, 0, `Read or write requests on the ${label.toLowerCase()} table (or its GSIs) were throttled.`);
    }

    // Rate limiter store errors: every (Rule, Mode) the throttle middleware emits.
    const storeErrors = new MathExpression({
      expression: `SELECT SUM(RateLimiterStoreError) FROM SCHEMA("${ns}", Mode, Rule)`,
      usingMetrics: {},
      period: FIVE_MINUTES,
      label: "rate limiter store errors",
    });
    this.alarm("RateLimiterStoreErrors", storeErrors, 0, "The rate limiter could not read or write its table: fail-open rules let requests through, fail-closed rules answer 503.");

    this.dashboard = new Dashboard(this, "Dashboard", { dashboardName: `Conversa-${props.stage}`, defaultInterval: Duration.hours(3) });
    const search = (expr: string, label: string) => new MathExpression({ expression: expr, usingMetrics: {}, period: FIVE_MINUTES, ...(label ? { label } : {}) });
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) => new GraphWidget({ title, left, right, width: 8, height: 6 });
    this.dashboard.addWidgets(
      new TextWidget({ markdown: `# Conversa ${props.stage}\nAlarms are described in the README, section Operate.`, width: 24, height: 1 }),
      new AlarmStatusWidget({ title: "Alarms", alarms: this.alarms, width: 24, height: 3 }),
    );
    this.dashboard.addWidgets(
      graph("API requests and 5xx", [requests, errors5xx], [rate5xx]),
      graph("API latency (p50, p99)", [
        props.api.metricLatency({ period: FIVE_MINUTES, statistic: "p50" }),
        props.api.metricLatency({ period: FIVE_MINUTES, statistic: "p99" }),
      ]),
      graph("5xx by route (Http5xx)", [search(`SEARCH('{${ns},Route} MetricName="Http5xx"', 'Sum', 300)`, "")]),
    );
    this.dashboard.addWidgets(
      graph("Deliveries", [delivery("DeliverySucceeded"), delivery("DeliveryRetried"), delivery("DeliveryFailed")]),
      graph("Delivery latency (p50, p99)", [delivery("DeliveryLatency", "p50"), delivery("DeliveryLatency", "p99")]),
      graph("Dead-letter queues (messages)", [eventsDlq, deliveriesDlq]),
    );
    this.dashboard.addWidgets(
      graph("Lambda errors", lambdaErrors),
      graph("Lambda throttles", lambdaThrottles),
      graph("DynamoDB throttle events", dynamoThrottles),
    );
    this.dashboard.addWidgets(
      graph("Requests throttled, by rule (429)", [search(`SEARCH('{${ns},Rule} MetricName="Throttled"', 'Sum', 300)`, "")]),
      graph("Rate limiter store errors", [storeErrors]),
    );
  }

  /** `metric > threshold` (or >=) for `datapoints` of `periods`, notifying the topic on ALARM and OK. */
  private alarm(id: string, metric: IMetric, threshold: number, description: string, opts: AlarmOpts = {}): Alarm {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      comparisonOperator: opts.orEqual ? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD : ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: opts.periods ?? 1,
      datapointsToAlarm: opts.datapoints ?? 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }
}

interface AlarmOpts {
  readonly orEqual?: boolean;
  readonly periods?: number;
  readonly datapoints?: number;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
