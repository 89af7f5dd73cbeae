/**
 * The webhook event pipeline:
 *
 *   main table stream --Pipe (filter: outbox inserts)--> custom bus --rule (12 events)-->
 *   events queue (+DLQ) --> fan-out Lambda --> deliveries queue (+DLQ) --> delivery Lambda
 *
 * The Pipe's filter, input template and detail-type, and the rule's pattern come from
 * shared/events/envelope.ts, which the sandbox's stream poller uses too. The queues, DLQs,
 * mappings and worker timeouts come from the worker table (shared/workers.ts), which the
 * sandbox's queue poller reads too. Both workers report partial batch failures; retries are
 * visibility changes on the deliveries queue, so its maxReceiveCount follows the retry schedule.
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
import { parseSchedule } from "../shared/delivery/schedule.ts";
import { EVENT_SOURCE } from "../shared/events/catalog.ts";
import { PIPE_DETAIL_TYPE_PATH, PIPE_FILTER_PATTERN, PIPE_INPUT_TEMPLATE, RULE_PATTERN } from "../shared/events/envelope.ts";
import { workerFor, type Worker, type WorkerSettings } from "../shared/workers.ts";

const FANOUT = workerFor("events");
const DELIVER = workerFor("deliveries");
export const FANOUT_FN = FANOUT.fn;
export const DELIVER_FN = DELIVER.fn;
export const RESEND_FN = "webhook-deliveries-resend";
/** Route functions that queue deliveries: resend, recover, test sends. */
export const QUEUEING_FNS = [RESEND_FN, "webhooks-recover", "webhooks-test"] as const;

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
    const settings: WorkerSettings = {
      retrySchedule: parseSchedule(props.environment["WEBHOOK_RETRY_SCHEDULE"]),
      webhookTimeoutSeconds: Number(props.environment["WEBHOOK_TIMEOUT"] ?? 5),
    };
    const fanout = fn(FANOUT.fn);
    const deliver = fn(DELIVER.fn);
    for (const [w, f] of [[FANOUT, fanout], [DELIVER, deliver]] as const) {
      if (w.timeoutSeconds) (f.node.defaultChild as CfnFunction).timeout = w.timeoutSeconds(settings);
    }

    const common = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, removalPolicy: props.removalPolicy };
    const queueOf = (w: Worker, id: string): { queue: Queue; dlq: Queue } => {
      const dlq = new Queue(this, `${id}Dlq`, { ...common, retentionPeriod: Duration.seconds(w.dlqRetentionSeconds) });
      const queue = new Queue(this, `${id}Queue`, {
        ...common,
        visibilityTimeout: Duration.seconds(w.visibilityTimeoutSeconds(settings)),
        ...(w.retentionSeconds ? { retentionPeriod: Duration.seconds(w.retentionSeconds(settings)) } : {}),
        deadLetterQueue: { queue: dlq, maxReceiveCount: w.maxReceiveCount(settings) },
      });
      return { queue, dlq };
    };
    ({ queue: this.eventsQueue, dlq: this.eventsDlq } = queueOf(FANOUT, "Events"));
    ({ queue: this.deliveryQueue, dlq: this.deliveryDlq } = queueOf(DELIVER, "Deliveries"));

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

    fanout.addEventSource(new SqsEventSource(this.eventsQueue, { batchSize: FANOUT.batchSize, reportBatchItemFailures: true }));
    deliver.addEventSource(new SqsEventSource(this.deliveryQueue, { batchSize: DELIVER.batchSize, reportBatchItemFailures: true }));
    for (const f of [fanout, deliver, ...QUEUEING_FNS.map(fn)]) f.addEnvironment("DELIVERY_QUEUE_URL", this.deliveryQueue.queueUrl);
    for (const f of [fanout, ...QUEUEING_FNS.map(fn)]) this.deliveryQueue.grantSendMessages(f);
  }
}
