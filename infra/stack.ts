/**
 * The Conversa stack: the main and throttle DynamoDB tables, an HTTP API with one route per row
 * of the route table, one Lambda per function file those rows name, the webhook pipeline, the
 * uploads bucket and the alarms.
 *
 * Env-agnostic (no account/region, no lookups): `cdk synth` needs no AWS credentials. The
 * function code comes from `buildFunctions()` (infra/build.ts), which must have run first.
 */
import { App, CfnOutput, Duration, RemovalPolicy, Stack, Tags } from "aws-cdk-lib";
import type { StackProps } from "aws-cdk-lib";
import { CorsHttpMethod, HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from "aws-cdk-lib/aws-apigatewayv2";
import type { HttpApiProps } from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from "aws-cdk-lib/aws-dynamodb";
import type { TableProps } from "aws-cdk-lib/aws-dynamodb";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, Code, Function as LambdaFunction, Runtime } from "aws-cdk-lib/aws-lambda";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_KEYS, DEFAULT_MAIL_FROM } from "../shared/config.ts";
import type { Config } from "../shared/config.ts";
import { mainTable, throttleTable } from "../shared/db/table.ts";
import type { TableDef } from "../shared/db/table.ts";
import { routes } from "../shared/routes.ts";
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS } from "../shared/http/cors.ts";
import type { Route } from "../shared/routes.ts";
import { DEFAULT_OUT_DIR, extraFunctions, ROUTER_FN } from "./build.ts";
import { grantTableData, MAIN_TABLE_READ, MAIN_TABLE_WRITE, THROTTLE_COUNTER_ACTIONS, WORKER_TABLE_ACTIONS } from "./grants.ts";
import { acknowledge, type NagAcknowledgement } from "./nag.ts";
import { accessLogSettings, Observability, observabilityContext } from "./observability.ts";
import { Uploads } from "./uploads.ts";
import { DELIVER_FN, WebhookPipeline } from "./webhooks.ts";

export const STAGES = ["production", "development"] as const;
export type Stage = (typeof STAGES)[number];

export const DEFAULT_MEMORY_MB = 256;
export const DEFAULT_TIMEOUT_SECONDS = 10;

/** The one function allowed to send mail (POST /auth/password). */
export const MAIL_SENDING_FUNCTION = "auth-password-request";

/** Functions granted the uploads bucket (put, and get for the signed URLs they hand out). */
export const UPLOAD_FUNCTIONS = ["upload-create", "messages-create", "messages-update"] as const;
/** Functions that only sign data_url of message files (get). */
export const UPLOAD_READERS = ["messages-list", "conversations-transcript"] as const;

/** cdk-nag findings on the stack's own functions and API, acknowledged rather than fixed (the uploads' are in uploads.ts). */
export const STACK_NAG_ACKNOWLEDGEMENTS = {
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
} as const satisfies Record<string, NagAcknowledgement>;

/** Variables the stack sets itself, or Lambda reserves: never taken from context. */
const NOT_FROM_CONTEXT: Partial<Record<keyof Config, string>> = {
  APP_ENV: "it follows the stage (-c stage=production|development)",
  TABLE_NAME: "the stack sets it to the main table's name",
  ROUTE_FUNCTION_PREFIX: "the stack names the route functions",
  LAMBDA_ENDPOINT: "a local endpoint, for tests only",
  THROTTLE_TABLE_NAME: "the stack sets it to the throttle table's name",
  UPLOADS_BUCKET: "the stack sets it to the uploads bucket's name",
  AWS_REGION: "Lambda reserves it",
};

/** The `stage` context value; production when unset. */
export function parseStage(value: unknown): Stage {
  if (value === undefined) return "production";
  const stage = STAGES.find((s) => s === value);
  if (!stage) throw new Error(`context "stage" must be one of ${STAGES.join(", ")}, got ${JSON.stringify(value)}`);
  return stage;
}

export interface ConversaStackProps extends StackProps {
  readonly stage: Stage;
  /** Directory holding `<fn>/index.mjs` (the `outDir` given to `buildFunctions`). */
  readonly assetsDir?: string;
}

export class ConversaStack extends Stack {
  readonly stage: Stage;
  readonly table: Table;
  readonly throttleTable: Table;
  readonly api: HttpApi;
  /** The private bucket of `POST .../upload` and its access-log bucket. */
  readonly uploads: Uploads;
  /** The `$default` route's function: a route's path plus a trailing slash → that route's function; else 404. */
  readonly router: LambdaFunction;
  /** Every function by its file name under functions/ (route and extra functions). */
  readonly functions = new Map<string, LambdaFunction>();
  /** Outbox stream -> Pipe -> bus -> rule -> queues -> fan-out and delivery workers. */
  readonly webhooks: WebhookPipeline;
  /** The HTTP API's access log (JSON, one line per request). */
  readonly accessLogGroup: LogGroup;
  /** Alarms, their SNS topic and the dashboard. */
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: ConversaStackProps) {
    super(scope, id, props);
    this.stage = props.stage;
    const assetsDir = props.assetsDir ?? DEFAULT_OUT_DIR;
    const removalPolicy = this.stage === "production" ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = this.makeTable("MainTable", mainTable, {
      removalPolicy,
      encryption: TableEncryption.AWS_MANAGED,
      ...(mainTable.stream ? { stream: StreamViewType.NEW_IMAGE } : {}),
    });
    this.throttleTable = this.makeTable("ThrottleTable", throttleTable, { removalPolicy });

    const contextEnv = this.contextEnvironment();
    this.api = new HttpApi(this, "HttpApi", {
      apiName: `conversa-${this.stage}`,
      description: `Conversa API (${this.stage})`,
      createDefaultStage: false,
      ...checkoutCors(contextEnv["CHECKOUT_ALLOWED_ORIGINS"]),
    });
    this.accessLogGroup = new LogGroup(this, "ApiAccessLogs", { retention: RetentionDays.ONE_MONTH, removalPolicy });
    this.api.addStage("DefaultStage", { stageName: "$default", autoDeploy: true, accessLogSettings: accessLogSettings(this.accessLogGroup) });

    const environment: Record<string, string> = {
      ...contextEnv,
      APP_ENV: this.stage,
      TABLE_NAME: this.table.tableName,
      THROTTLE_TABLE_NAME: this.throttleTable.tableName,
      METRICS_NAMESPACE: contextEnv["METRICS_NAMESPACE"] ?? `Conversa/${this.stage}`,
      // The checkout page is served by this API (GET /checkout) unless the operator names another.
      CHECKOUT_PAGE_URL: contextEnv["CHECKOUT_PAGE_URL"] ?? `${this.api.apiEndpoint}/checkout`,
    };

    // One Lambda per function file; routes sharing a file (e.g. PATCH and PUT) share it.
    const byFn = new Map<string, Route[]>();
    for (const route of routes as readonly Route[]) byFn.set(route.fn, [...(byFn.get(route.fn) ?? []), route]);

    // Route functions have known names (prefix + file), so that the router can invoke them by name.
    const routeFunctionPrefix = `${this.stackName}-`;
    for (const [name, group] of byFn) {
      const fn = this.makeFunction(name, {
        functionName: `${routeFunctionPrefix}${name}`,
        assetsDir,
        environment,
        removalPolicy,
        memoryMb: largest(group.map((r) => r.memoryMb)),
        timeoutSeconds: largest(group.map((r) => r.timeoutSeconds)),
      });
      // Least privilege: read-only routes never write the main table; every route counts requests.
      const readOnly = group.every((r) => r.method === "GET");
      grantTableData(fn, this.table, mainTable, readOnly ? MAIN_TABLE_READ : [...MAIN_TABLE_READ, ...MAIN_TABLE_WRITE]);
      this.throttleTable.grantReadWriteData(fn);

      const integration = new HttpLambdaIntegration(`${logicalName(name)}Integration`, fn);
      for (const route of group) {
        this.api.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
      }
    }

    // Route keys cannot end in "/": the catch-all `$default` route hands `<route path>/` to the
    // route's function (docs/architecture.md, Trailing slashes); it may invoke exactly those.
    this.router = this.makeFunction(ROUTER_FN, { assetsDir, environment: { ...environment, ROUTE_FUNCTION_PREFIX: routeFunctionPrefix }, removalPolicy });
    this.router.addToRolePolicy(
      new PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [...byFn.keys()].map((name) => this.functions.get(name)!.functionArn) }),
    );
    // Its 404s count toward the overall per-IP limit: the limiter's atomic ADDs on the throttle table.
    this.router.addToRolePolicy(new PolicyStatement({ actions: [...THROTTLE_COUNTER_ACTIONS], resources: [this.throttleTable.tableArn] }));
    new HttpRoute(this.api, "DefaultRoute", {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration("ApiRouterIntegration", this.router),
    });

    // Password-recovery mail: only this function may send, and only as MAIL_FROM.
    this.grantMailSend(MAIL_SENDING_FUNCTION, environment["MAIL_FROM"] ?? DEFAULT_MAIL_FROM);

    // Not behind a route (queue workers...): their triggers are wired where they are added.
    for (const name of extraFunctions) {
      const fn = this.makeFunction(name, { assetsDir, environment, removalPolicy });
      const worker = WORKER_TABLE_ACTIONS[name];
      grantTableData(fn, this.table, mainTable, worker ?? [...MAIN_TABLE_READ, ...MAIN_TABLE_WRITE], !worker);
      // The delivery worker paces webhooks with a rate_limit through the limiter's counters (ADD only).
      if (name === DELIVER_FN) fn.addToRolePolicy(new PolicyStatement({ actions: [...THROTTLE_COUNTER_ACTIONS], resources: [this.throttleTable.tableArn] }));
    }

    this.webhooks = new WebhookPipeline(this, "Webhooks", { table: this.table, functions: this.functions, environment, removalPolicy });
    // Uploads: encrypted, private, TLS only, access-logged; only the functions that need it get access.
    this.uploads = new Uploads(this, { removalPolicy, autoDeleteObjects: this.stage === "development" });
    for (const name of UPLOAD_FUNCTIONS) {
      const fn = this.functions.get(name);
      if (fn) this.uploads.grantObjects(fn);
    }
    for (const name of UPLOAD_READERS) {
      const fn = this.functions.get(name);
      if (fn) this.uploads.grantRead(fn);
    }

    this.observability = new Observability(this, "Observability", {
      stage: this.stage,
      metricsNamespace: environment["METRICS_NAMESPACE"]!,
      api: this.api,
      tables: [
        { table: this.table, def: mainTable },
        { table: this.throttleTable, def: throttleTable },
      ],
      functions: this.functions,
      queues: this.webhooks,
      removalPolicy,
      ...observabilityContext(this.node),
    });
    for (const fn of this.functions.values()) acknowledge(fn, STACK_NAG_ACKNOWLEDGEMENTS.lambdaRuntime);
    acknowledge(this.api, STACK_NAG_ACKNOWLEDGEMENTS.apiAuthorization);

    new CfnOutput(this, "ApiUrl", { value: this.api.apiEndpoint, description: "Base URL of the HTTP API" });
    new CfnOutput(this, "TableName", { value: this.table.tableName });
    new CfnOutput(this, "ThrottleTableName", { value: this.throttleTable.tableName });
    new CfnOutput(this, "EventBusName", {
      value: this.webhooks.bus.eventBusName,
      description: "Event bus of the operator events (subscription_created, quote_requested, webhook_disabled; source conversa): put your own rules on it",
    });
  }

  /** `ses:SendEmail` on the sender's identities (address and domain), with `ses:FromAddress` pinned. */
  private grantMailSend(fnName: string, from: string): void {
    const fn = this.functions.get(fnName);
    if (!fn) throw new Error(`no function "${fnName}" to grant ses:SendEmail to`);
    const identities = [from, from.split("@")[1]].filter((id): id is string => Boolean(id));
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ["ses:SendEmail"],
        resources: identities.map((id) => this.formatArn({ service: "ses", resource: "identity", resourceName: id })),
        conditions: { StringEquals: { "ses:FromAddress": from } },
      }),
    );
  }

  private makeTable(id: string, def: TableDef, extra: Partial<TableProps>): Table {
    const table = new Table(this, id, {
      partitionKey: { name: def.partitionKey, type: AttributeType.STRING },
      ...(def.sortKey ? { sortKey: { name: def.sortKey, type: AttributeType.STRING } } : {}),
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: def.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      ...extra,
    });
    for (const gsi of def.gsis) {
      table.addGlobalSecondaryIndex({
        indexName: gsi.name,
        partitionKey: { name: gsi.partitionKey, type: AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }

  private makeFunction(
    name: string,
    opts: {
      readonly assetsDir: string;
      readonly environment: Record<string, string>;
      readonly removalPolicy: RemovalPolicy;
      readonly functionName?: string;
      readonly memoryMb?: number | undefined;
      readonly timeoutSeconds?: number | undefined;
    },
  ): LambdaFunction {
    if (this.functions.has(name)) throw new Error(`function "${name}" is defined twice (route table and extraFunctions?)`);
    const codeDir = join(opts.assetsDir, name);
    if (!existsSync(join(codeDir, "index.mjs"))) {
      throw new Error(`no bundle for "${name}" in ${opts.assetsDir}: run buildFunctions() (npm run build) before synth`);
    }
    const id = logicalName(name);
    const logGroup = new LogGroup(this, `${id}Logs`, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: opts.removalPolicy,
    });
    // Its own role, allowed to write only its own log group (no AWSLambdaBasicExecutionRole).
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `Conversa ${this.stage}: functions/${name}.ts`,
    });
    logGroup.grantWrite(role);
    const fn = new LambdaFunction(this, `${id}Function`, {
      ...(opts.functionName ? { functionName: opts.functionName } : {}),
      code: Code.fromAsset(codeDir),
      handler: "index.handler",
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: opts.memoryMb ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(opts.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      description: `Conversa ${this.stage}: functions/${name}.ts`,
      environment: opts.environment,
      logGroup,
      role,
    });
    this.functions.set(name, fn);
    return fn;
  }

  /** Every other config variable given as context with its own name (`-c THROTTLE_LIMIT=5000`). */
  private contextEnvironment(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const key of CONFIG_KEYS) {
      const value: unknown = this.node.tryGetContext(key);
      if (value === undefined) continue;
      const reason = NOT_FROM_CONTEXT[key];
      if (reason) throw new Error(`context "${key}" is not accepted: ${reason}`);
      env[key] = contextString(key, value);
    }
    return env;
  }
}

/**
 * CORS for the marketing site (CHECKOUT_ALLOWED_ORIGINS): API Gateway answers the preflight;
 * the allowed headers (content-type, idempotency-key, not api_access_token) keep account
 * endpoints out of reach of those origins' scripts. None when no origin is configured.
 */
function checkoutCors(origins: string | undefined): Pick<HttpApiProps, "corsPreflight"> {
  const allowOrigins = (origins ?? "").split(",").map((o) => o.trim()).filter(Boolean);
  if (allowOrigins.length === 0) return {};
  return {
    corsPreflight: {
      allowOrigins,
      allowMethods: CORS_ALLOW_METHODS.map((m) => CorsHttpMethod[m]),
      allowHeaders: [...CORS_ALLOW_HEADERS],
      exposeHeaders: [...CORS_EXPOSE_HEADERS],
      maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
    },
  };
}

function largest(values: readonly (number | undefined)[]): number | undefined {
  const given = values.filter((v): v is number => v !== undefined);
  return given.length ? Math.max(...given) : undefined;
}

function contextString(key: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(",");
  throw new Error(`context "${key}" must be a string, number, boolean or list of strings`);
}

/** `inboxes-create` → `InboxesCreate`. */
function logicalName(fn: string): string {
  return fn
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}

export interface BuildAppOptions {
  /** An app carrying the context (`stage`, pass-through variables); a new one otherwise. */
  readonly app?: App;
  /** Where the bundles are; default `.build/functions`. */
  readonly assetsDir?: string;
}

/** The stack for the app's `stage` context, named `Conversa-<stage>`. Bundles must exist. */
export function buildApp(opts: BuildAppOptions = {}): { app: App; stack: ConversaStack } {
  const app = opts.app ?? new App();
  const stage = parseStage(app.node.tryGetContext("stage"));
  const stack = new ConversaStack(app, `Conversa-${stage}`, {
    stage,
    ...(opts.assetsDir ? { assetsDir: opts.assetsDir } : {}),
    description: `Conversa API (${stage})`,
  });
  Tags.of(stack).add("project", "conversa");
  Tags.of(stack).add("stage", stage);
  return { app, stack };
}
