/**
 * The webhook event pipeline:
 *
 *   main table stream --Pipe (filter: outbox inserts)--> custom bus --rule (12 events)-->
 *   events queue (+DLQ) --> fan-out Lambda --> deliveries queue (+DLQ) --> delivery Lambda
 *
 * The Pipe's filter, input template and detail-type, and the rule's pattern come from
 * shared/events/envelope.ts, which the sandbox's stream poller uses too. Both workers report
 * partial batch failures; retries are visibility changes on the deliveries queue, so its
 * maxReceiveCount follows the retry schedule.
 */
import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { EventBus, Rule } from "aws-cdk-lib/aws-events";
import { SqsQueue } from "aws-cdk-lib/aws-events-targets";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { CfnPipe } from "aws-cdk-lib/aws-pipes";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import { Construct } from "constructs";
import { deliveryMaxReceiveCount, parseSchedule } from "../shared/delivery/schedule.ts";
import { EVENT_SOURCE } from "../shared/events/catalog.ts";
import { PIPE_DETAIL_TYPE_PATH, PIPE_FILTER_PATTERN, PIPE_INPUT_TEMPLATE, RULE_PATTERN } from "../shared/events/envelope.ts";

export const FANOUT_FN = "webhooks-fanout";
export const DELIVER_FN = "webhooks-deliver";
export const RESEND_FN = "webhook-deliveries-resend";
export const EVENTS_MAX_RECEIVE_COUNT = 5;

export interface WebhookPipelineProps {
  readonly table: Table;
  /** The stack's functions by file name (route and extra functions). */
  readonly functions: ReadonlyMap<string, LambdaFunction>;
  /** The environment every function gets (WEBHOOK_TIMEOUT / WEBHOOK_RETRY_SCHEDULE from context). */
  readonly environment: Readonly<Record<string, string>>;
  readonly removalPolicy: RemovalPolicy;
}

export class WebhookPipeline extends Construct {
  readonly bus: EventBus;
  readonly rule: Rule;
  readonly pipe: CfnPipe;
  readonly eventsQueue: Queue;
  readonly eventsDlq: Queue;
  readonly deliveryQueue: Queue;
  readonly deliveryDlq: Queue;

  constructor(scope: Construct, id: string, props: WebhookPipelineProps) {
    super(scope, id);
    const fn = (name: string): LambdaFunction => {
      const f = props.functions.get(name);
      if (!f) throw new Error(`WebhookPipeline: no function "${name}"`);
      return f;
    };
    const schedule = parseSchedule(props.environment["WEBHOOK_RETRY_SCHEDULE"]);
    const webhookTimeout = Number(props.environment["WEBHOOK_TIMEOUT"] ?? 5);
    // Records of a batch are attempted concurrently: one timeout plus the bookkeeping.
    const deliverTimeout = Duration.seconds(webhookTimeout + 20);
    const fanout = fn(FANOUT_FN);
    const deliver = fn(DELIVER_FN);
    (deliver.node.defaultChild as CfnFunction).timeout = deliverTimeout.toSeconds();

    const common = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, removalPolicy: props.removalPolicy };
    this.eventsDlq = new Queue(this, "EventsDlq", { ...common, retentionPeriod: Duration.days(14) });
    this.eventsQueue = new Queue(this, "EventsQueue", {
      ...common,
      visibilityTimeout: Duration.seconds(60),
      deadLetterQueue: { queue: this.eventsDlq, maxReceiveCount: EVENTS_MAX_RECEIVE_COUNT },
    });
    this.deliveryDlq = new Queue(this, "DeliveriesDlq", { ...common, retentionPeriod: Duration.days(14) });
    // Retention covers the whole schedule (default about 28 h): 4 days plus the schedule.
    const scheduleSeconds = schedule.reduce((s, n) => s + n, 0);
    this.deliveryQueue = new Queue(this, "DeliveriesQueue", {
      ...common,
      visibilityTimeout: Duration.seconds(deliverTimeout.toSeconds() * 3),
      retentionPeriod: Duration.seconds(Math.min(14 * 86400, 4 * 86400 + scheduleSeconds)),
      deadLetterQueue: { queue: this.deliveryDlq, maxReceiveCount: deliveryMaxReceiveCount(schedule) },
    });

    this.bus = new EventBus(this, "Bus", { description: "Conversa events (outbox -> Pipe)" });
    this.rule = new Rule(this, "WebhookEvents", {
      eventBus: this.bus,
      description: "The 12 webhook events to the events queue",
      eventPattern: { source: RULE_PATTERN.source, detailType: RULE_PATTERN["detail-type"] },
      targets: [new SqsQueue(this.eventsQueue)],
    });

    const pipeRole = new Role(this, "PipeRole", { assumedBy: new ServicePrincipal("pipes.amazonaws.com") });
    const streamArn = props.table.tableStreamArn;
    if (!streamArn) throw new Error("WebhookPipeline: the main table needs its stream");
    pipeRole.addToPolicy(
      new PolicyStatement({
        actions: ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"],
        resources: [streamArn],
      }),
    );
    pipeRole.addToPolicy(new PolicyStatement({ actions: ["events:PutEvents"], resources: [this.bus.eventBusArn] }));
    this.pipe = new CfnPipe(this, "OutboxPipe", {
      description: "Outbox inserts from the main table stream to the event bus",
      roleArn: pipeRole.roleArn,
      source: streamArn,
      sourceParameters: {
        dynamoDbStreamParameters: { startingPosition: "LATEST", batchSize: 10, maximumBatchingWindowInSeconds: 0 },
        filterCriteria: { filters: [{ pattern: JSON.stringify(PIPE_FILTER_PATTERN) }] },
      },
      target: this.bus.eventBusArn,
      targetParameters: {
        inputTemplate: PIPE_INPUT_TEMPLATE,
        eventBridgeEventBusParameters: { detailType: PIPE_DETAIL_TYPE_PATH, source: EVENT_SOURCE },
      },
    });
    this.pipe.node.addDependency(pipeRole);

    fanout.addEventSource(new SqsEventSource(this.eventsQueue, { batchSize: 10, reportBatchItemFailures: true }));
    deliver.addEventSource(new SqsEventSource(this.deliveryQueue, { batchSize: 10, reportBatchItemFailures: true }));
    for (const f of [fanout, deliver, fn(RESEND_FN)]) f.addEnvironment("DELIVERY_QUEUE_URL", this.deliveryQueue.queueUrl);
    this.deliveryQueue.grantSendMessages(fanout);
    this.deliveryQueue.grantSendMessages(fn(RESEND_FN));
  }
}
