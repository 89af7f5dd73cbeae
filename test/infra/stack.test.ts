/**
 * The synthesized stack against the route table and the table definitions.
 * Bundles once into a temp dir, then synthesizes one stack per stage.
 */
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFunctions, extraFunctions, isSdkInput, MAX_BUNDLE_BYTES, MAX_MEDIAN_OWN_BYTES, MAX_OWN_BYTES, packageOf, ROUTER_FN, type BuiltFunction } from "../../infra/build.ts";
import { buildApp, DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_SECONDS, STAGES } from "../../infra/stack.ts";
import type { Stage } from "../../infra/stack.ts";
import { mainTable, throttleTable } from "../../shared/db/table.ts";
import type { TableDef } from "../../shared/db/table.ts";
import { routes } from "../../shared/routes.ts";
import type { Route } from "../../shared/routes.ts";

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}
type Resources = Record<string, Resource>;

const table: readonly Route[] = routes;
const routeKey = (r: Route): string => `${r.method} ${r.path}`;
/** Routes of the table by function file (routes may share one). */
const routesOf = (fn: string): Route[] => table.filter((r) => r.fn === fn);
const fnNames = [...new Set(table.map((r) => r.fn))];
const largest = (values: (number | undefined)[]): number | undefined =>
  values.some((v) => v !== undefined) ? Math.max(...values.filter((v) => v !== undefined)) : undefined;

let assetsDir = "";
let built: BuiltFunction[] = [];
const templates = new Map<Stage, Template>();
let passThrough: Template;

function template(stage: Stage): Template {
  const t = templates.get(stage);
  if (!t) throw new Error(`no template for ${stage}`);
  return t;
}

function synth(context: Record<string, unknown>): Template {
  const { stack } = buildApp({ app: new App({ context }), assetsDir });
  return Template.fromStack(stack);
}

/** Resources of a type; for Lambda functions only ours (not CDK's bucket auto-delete provider in development). */
const ofType = (t: Template, type: string): Resources => {
  const all = t.findResources(type) as Resources;
  if (type !== "AWS::Lambda::Function") return all;
  return Object.fromEntries(Object.entries(all).filter(([, f]) => String(f.Properties.Description ?? "").startsWith("Conversa ")));
};

/** `{"Ref": id}` or `{"Fn::GetAtt": [id, attr]}` → id. */
function refId(value: unknown): string {
  const v = value as { Ref?: string; "Fn::GetAtt"?: [string, string] };
  const id = v.Ref ?? v["Fn::GetAtt"]?.[0];
  if (!id) throw new Error(`not a reference: ${JSON.stringify(value)}`);
  return id;
}

/** The table whose key schema is the given definition's (pk only vs pk/sk). */
function tableFor(t: Template, def: TableDef): [string, Resource] {
  const wanted = [def.partitionKey, ...(def.sortKey ? [def.sortKey] : [])];
  const found = Object.entries(ofType(t, "AWS::DynamoDB::Table")).filter(([, r]) => {
    const keys = (r.Properties.KeySchema as { AttributeName: string }[]).map((k) => k.AttributeName);
    return JSON.stringify(keys) === JSON.stringify(wanted);
  });
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** Function logical id behind each route key, following Route → Integration → Function. */
function functionsByRouteKey(t: Template): Map<string, string> {
  const integrations = ofType(t, "AWS::ApiGatewayV2::Integration");
  const out = new Map<string, string>();
  for (const r of Object.values(ofType(t, "AWS::ApiGatewayV2::Route"))) {
    const target = r.Properties.Target as { "Fn::Join": [string, unknown[]] };
    const integration = integrations[refId(target["Fn::Join"][1][1])];
    expect(integration, `integration of ${String(r.Properties.RouteKey)}`).toBeDefined();
    out.set(r.Properties.RouteKey as string, refId(integration!.Properties.IntegrationUri));
  }
  return out;
}

/** Actions granted to a function's role on a table, from the role's inline policies. */
function actionsOn(t: Template, fnId: string, tableId: string): Set<string> {
  const fn = ofType(t, "AWS::Lambda::Function")[fnId]!;
  const roleId = refId(fn.Properties.Role);
  const actions = new Set<string>();
  for (const p of Object.values(ofType(t, "AWS::IAM::Policy"))) {
    const roles = (p.Properties.Roles as unknown[]).map(refId);
    if (!roles.includes(roleId)) continue;
    const doc = p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] };
    for (const s of doc.Statement) {
      const resources = Array.isArray(s.Resource) ? s.Resource : [s.Resource];
      if (!resources.some((res) => JSON.stringify(res).includes(`"${tableId}"`))) continue;
      for (const a of [s.Action].flat()) actions.add(a);
    }
  }
  return actions;
}

/** Function logical ids a function's role may invoke (lambda:InvokeFunction statements). */
function invokeTargets(t: Template, fnId: string): Set<string> {
  const roleId = refId(ofType(t, "AWS::Lambda::Function")[fnId]!.Properties.Role);
  const out = new Set<string>();
  for (const p of Object.values(ofType(t, "AWS::IAM::Policy"))) {
    if (!(p.Properties.Roles as unknown[]).map(refId).includes(roleId)) continue;
    for (const s of (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement) {
      if (![s.Action].flat().includes("lambda:InvokeFunction")) continue;
      for (const res of [s.Resource].flat()) out.add(refId(res));
    }
  }
  return out;
}

beforeAll(async () => {
  assetsDir = await mkdtemp(join(tmpdir(), "conversa-infra-"));
  built = await buildFunctions({ outDir: assetsDir });
  for (const stage of STAGES) templates.set(stage, synth({ stage }));
  passThrough = synth({ stage: "production", THROTTLE_LIMIT: "5000", THROTTLE_ALLOWED_IPS: ["10.0.0.0/8", "1.2.3.4"] });
}, 120_000);

afterAll(async () => {
  if (assetsDir) await rm(assetsDir, { recursive: true, force: true });
});

describe("bundles", () => {
  it("keeps every function within the size limit", () => {
    expect(built.length).toBe(fnNames.length + extraFunctions.length + 1);
    expect(built.filter((b) => b.bytes > MAX_BUNDLE_BYTES).map((b) => b.fn)).toEqual([]);
  });

  it("keeps what each function adds to the AWS SDK within the cold-start budget, and bundles no package it has not chosen", () => {
    // A cold start compiles the bundle's source: the bytes past the SDK are its cost over the SDK alone.
    const own = built.map((b) => b.ownBytes).sort((x, y) => x - y);
    expect(built.filter((b) => b.ownBytes > MAX_OWN_BYTES).map((b) => `${b.fn} ${b.ownBytes} B`)).toEqual([]);
    expect(own[Math.floor(own.length / 2)]).toBeLessThanOrEqual(MAX_MEDIAN_OWN_BYTES);
    // The SDK is most of every bundle, and what is not the SDK is the app's own code and these.
    for (const b of built) expect(b.ownBytes, b.fn).toBeLessThan(b.bytes / 2);
    const chosen = new Set(["zod", "@middy/core", "busboy", "streamsearch"]);
    const unchosen = built.flatMap((b) => b.packages.filter((p) => !isSdkInput(`node_modules/${p}/x.js`) && !chosen.has(p)).map((p) => `${b.fn}: ${p}`));
    expect(unchosen).toEqual([]);
  });

  it("tells the AWS SDK's bundle inputs from the rest", () => {
    expect(packageOf("node_modules/@smithy/core/dist-es/index.js")).toBe("@smithy/core");
    expect(packageOf("node_modules/.pnpm/x/node_modules/zod/v4/core/core.js")).toBe("zod");
    expect(packageOf("shared/http/api.ts")).toBeUndefined();
    expect(isSdkInput("node_modules/@aws-sdk/client-dynamodb/dist-es/index.js")).toBe(true);
    expect(isSdkInput("node_modules/mnemonist/lru-cache.js")).toBe(true);
    expect(isSdkInput("node_modules/zod/v4/core/core.js")).toBe(false);
    expect(isSdkInput("node_modules/@middy/core/index.js")).toBe(false);
    expect(isSdkInput("shared/db/client.ts")).toBe(false);
  });

  it("leaves out what a cold start need not load: web streams (middy's streaming path), whole S3/SES clients", async () => {
    const meta = JSON.parse(await readFile(join(assetsDir, "meta.json"), "utf8")) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    for (const b of built) {
      const code = await readFile(b.outfile, "utf8");
      expect(code, b.fn).not.toMatch(/from\s*"node:stream\/web"/);
    }
    const inputs = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(inputs.filter((i) => /@aws-sdk\/(client-s3|client-sesv2|s3-request-presigner)\//.test(i))).toEqual([]);
    expect(inputs.some((i) => i.endsWith("infra/bundle/middy-streams.ts"))).toBe(true);
  });
});

describe("route table parity", () => {
  it("has unique route keys in the table", () => {
    const keys = table.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(STAGES)("has exactly one API Gateway route per table row, plus $default, and no other (%s)", (stage) => {
    const synthesized = Object.values(ofType(template(stage), "AWS::ApiGatewayV2::Route"))
      .map((r) => r.Properties.RouteKey as string)
      .sort();
    expect(synthesized).toEqual([...table.map(routeKey), "$default"].sort());
  });

  it("reaches each route's function with and without a trailing slash: the exact key, or $default → router → Invoke", () => {
    const t = template("production");
    const byKey = functionsByRouteKey(t);
    const fns = ofType(t, "AWS::Lambda::Function");
    const routerId = byKey.get("$default")!;
    expect(fns[routerId]?.Properties.Description).toBe(`Conversa production: functions/${ROUTER_FN}.ts`);
    const prefix = (fns[routerId]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables.ROUTE_FUNCTION_PREFIX;
    expect(prefix).toBe("Conversa-production-");
    const invokable = invokeTargets(t, routerId);
    for (const r of table) {
      const fnId = byKey.get(routeKey(r))!;
      // The name the router invokes for `<path>/` is the name of the function behind `<path>`.
      expect(fns[fnId]!.Properties.FunctionName, r.id).toBe(`${String(prefix)}${r.fn}`);
      expect(invokable.has(fnId), r.id).toBe(true);
    }
    // Exactly the route functions: not the workers, not itself.
    expect(invokable.size).toBe(fnNames.length);
  });

  it("integrates each route with the function built from its file", () => {
    const t = template("production");
    const byKey = functionsByRouteKey(t);
    const fns = ofType(t, "AWS::Lambda::Function");
    for (const r of table) {
      const fnId = byKey.get(routeKey(r));
      expect(fnId, routeKey(r)).toBeDefined();
      expect(fns[fnId!]?.Properties.Description, routeKey(r)).toBe(`Conversa production: functions/${r.fn}.ts`);
    }
    expect(new Set(byKey.values()).size).toBe(fnNames.length + 1);
  });

  it("uses payload format 2.0 (the handlers read API Gateway v2 events)", () => {
    for (const i of Object.values(ofType(template("production"), "AWS::ApiGatewayV2::Integration"))) {
      expect(i.Properties).toMatchObject({ IntegrationType: "AWS_PROXY", PayloadFormatVersion: "2.0" });
    }
  });
});

describe("functions", () => {
  it("has one Lambda per route function plus the extra functions, and no other", () => {
    const fns = Object.values(ofType(template("production"), "AWS::Lambda::Function"));
    expect(fns).toHaveLength(fnNames.length + extraFunctions.length + 1);
    expect(fns.map((f) => f.Properties.Description).sort()).toEqual(
      [...fnNames, ...extraFunctions, ROUTER_FN].map((fn) => `Conversa production: functions/${fn}.ts`).sort(),
    );
  });

  it("runs every function on nodejs22.x, arm64, from index.handler", () => {
    for (const f of Object.values(ofType(template("production"), "AWS::Lambda::Function"))) {
      expect(f.Properties).toMatchObject({ Runtime: "nodejs22.x", Architectures: ["arm64"], Handler: "index.handler" });
    }
  });

  it("applies memory and timeout defaults and per-route overrides", () => {
    const t = template("production");
    const byKey = functionsByRouteKey(t);
    const fns = ofType(t, "AWS::Lambda::Function");
    for (const r of table) {
      const props = fns[byKey.get(routeKey(r))!]!.Properties;
      const group = routesOf(r.fn);
      expect(props.MemorySize, r.id).toBe(largest(group.map((g) => g.memoryMb)) ?? DEFAULT_MEMORY_MB);
      expect(props.Timeout, r.id).toBe(largest(group.map((g) => g.timeoutSeconds)) ?? DEFAULT_TIMEOUT_SECONDS);
    }
  });

  it.each([
    ["production", "production"],
    ["development", "development"],
  ] as const)("sets APP_ENV=%s with stage %s, plus table names; no --enable-source-maps (stacks are mapped when logged)", (stage, appEnv) => {
    const t = template(stage);
    const [mainId] = tableFor(t, mainTable);
    const [throttleId] = tableFor(t, throttleTable);
    for (const f of Object.values(ofType(t, "AWS::Lambda::Function"))) {
      const vars = (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(vars.APP_ENV).toBe(appEnv);
      expect(vars.NODE_OPTIONS).toBeUndefined();
      expect(refId(vars.TABLE_NAME)).toBe(mainId);
      expect(refId(vars.THROTTLE_TABLE_NAME)).toBe(throttleId);
    }
  });

  it("passes config variables given as context through to every function", () => {
    for (const f of Object.values(ofType(passThrough, "AWS::Lambda::Function"))) {
      const vars = (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(vars).toMatchObject({ THROTTLE_LIMIT: "5000", THROTTLE_ALLOWED_IPS: "10.0.0.0/8,1.2.3.4" });
    }
    const plain = Object.values(ofType(template("production"), "AWS::Lambda::Function"))[0]!;
    expect((plain.Properties.Environment as { Variables: Record<string, unknown> }).Variables).not.toHaveProperty("THROTTLE_LIMIT");
  });

  it("rejects context for variables the stack owns, and unknown stages", () => {
    expect(() => synth({ stage: "production", APP_ENV: "development" })).toThrow(/APP_ENV/);
    expect(() => synth({ stage: "production", AWS_REGION: "eu-west-1" })).toThrow(/AWS_REGION/);
    expect(() => synth({ stage: "prod" })).toThrow(/stage/);
  });

  it.each([
    ["production", "Retain"],
    ["development", "Delete"],
  ] as const)("gives each function its own log group, one month, %s → %s (plus the API's access log)", (stage, policy) => {
    const t = template(stage);
    const groups = ofType(t, "AWS::Logs::LogGroup");
    const used = Object.values(ofType(t, "AWS::Lambda::Function")).map((f) =>
      refId((f.Properties.LoggingConfig as { LogGroup: unknown }).LogGroup),
    );
    expect(new Set(used).size).toBe(used.length);
    const stages = Object.values(ofType(t, "AWS::ApiGatewayV2::Stage"));
    expect(stages).toHaveLength(1);
    const accessLog = refId((stages[0]!.Properties.AccessLogSettings as { DestinationArn: unknown }).DestinationArn);
    expect(Object.keys(groups).sort()).toEqual([...used, accessLog].sort());
    for (const g of Object.values(groups)) {
      expect(g.Properties.RetentionInDays).toBe(30);
      expect(g.DeletionPolicy).toBe(policy);
    }
  });
});

describe("least privilege", () => {
  it("lets read-only functions only read the main table, others write it; all write the throttle table", () => {
    const t = template("production");
    const byKey = functionsByRouteKey(t);
    const [mainId] = tableFor(t, mainTable);
    const [throttleId] = tableFor(t, throttleTable);
    for (const r of table) {
      const fnId = byKey.get(routeKey(r))!;
      const main = actionsOn(t, fnId, mainId);
      const writes = routesOf(r.fn).some((g) => g.method !== "GET");
      expect(main.has("dynamodb:GetItem"), r.id).toBe(true);
      expect(main.has("dynamodb:Query"), r.id).toBe(true);
      expect(main.has("dynamodb:PutItem"), r.id).toBe(writes);
      expect(main.has("dynamodb:UpdateItem"), r.id).toBe(writes);
      const throttle = actionsOn(t, fnId, throttleId);
      expect(throttle.has("dynamodb:UpdateItem"), r.id).toBe(true);
    }
  });
});

describe("tables", () => {
  it("builds the main table from its definition", () => {
    const [, main] = tableFor(template("production"), mainTable);
    expect(main.Properties).toMatchObject({
      BillingMode: "PAY_PER_REQUEST",
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      StreamSpecification: { StreamViewType: "NEW_IMAGE" },
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
      // SSEEnabled without a key = KMS with the AWS-managed key (aws/dynamodb).
      SSESpecification: { SSEEnabled: true },
    });
    expect(main.Properties.SSESpecification).not.toHaveProperty("KMSMasterKeyId");
    expect(mainTable.ttlAttribute).toBe("expiresAt");
    const gsis = (main.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: unknown }[]) ?? [];
    expect(gsis.map((g) => g.IndexName).sort()).toEqual(mainTable.gsis.map((g) => g.name).sort());
    for (const def of mainTable.gsis) {
      const g = gsis.find((x) => x.IndexName === def.name)!;
      expect(g.KeySchema).toEqual([
        { AttributeName: def.partitionKey, KeyType: "HASH" },
        { AttributeName: def.sortKey, KeyType: "RANGE" },
      ]);
      expect(g.Projection).toEqual({ ProjectionType: "ALL" });
    }
  });

  it("builds the throttle table: pk only, TTL, on demand, PITR", () => {
    const [, throttle] = tableFor(template("production"), throttleTable);
    expect(throttle.Properties).toMatchObject({
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: throttleTable.ttlAttribute, Enabled: true },
    });
  });

  it.each([
    ["production", "Retain"],
    ["development", "Delete"],
  ] as const)("keeps or drops the tables with the stage (%s → %s)", (stage, policy) => {
    for (const r of Object.values(ofType(template(stage), "AWS::DynamoDB::Table"))) {
      expect(r.DeletionPolicy).toBe(policy);
      expect(r.UpdateReplacePolicy).toBe(policy);
    }
  });
});

describe("outputs", () => {
  it("exports the API URL, both table names and the event bus of the operator events", () => {
    const outputs = template("production").toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs).sort()).toEqual(["ApiUrl", "EventBusName", "TableName", "ThrottleTableName"]);
  });
});

describe("uploads bucket", () => {
  it("is encrypted, private and TLS-only, and so is its access-log bucket", () => {
    const t = template("production");
    const buckets = ofType(t, "AWS::S3::Bucket");
    expect(Object.keys(buckets).sort()).toEqual([expect.stringMatching(/^UploadsAccessLogs/), expect.stringMatching(/^UploadsBucket/)]);
    const uploadsId = Object.keys(buckets).find((id) => id.startsWith("UploadsBucket"))!;
    const logsId = Object.keys(buckets).find((id) => id.startsWith("UploadsAccessLogs"))!;
    expect(refId((buckets[uploadsId]!.Properties.LoggingConfiguration as { DestinationBucketName: unknown }).DestinationBucketName)).toBe(logsId);
    for (const bucket of Object.values(buckets)) {
      expect(bucket.Properties).toMatchObject({
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      });
    }
    const policies = Object.values(ofType(t, "AWS::S3::BucketPolicy"));
    expect(policies).toHaveLength(2);
    for (const policy of policies) {
      const statements = (policy.Properties.PolicyDocument as { Statement: { Effect: string; Condition?: unknown }[] }).Statement;
      expect(statements).toContainEqual(expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }));
    }
  });

  it("is granted only to the functions that write or sign message files, which get its name", () => {
    const t = template("production");
    const bucketId = Object.keys(ofType(t, "AWS::S3::Bucket")).find((id) => id.startsWith("UploadsBucket"));
    const fns = ofType(t, "AWS::Lambda::Function");
    const granted = Object.entries(fns).filter(([id]) => actionsOn(t, id, bucketId!).size > 0);
    const byFile = new Map(granted.map(([id, f]) => [String(f.Properties.Description).replace("Conversa production: functions/", "").replace(/\.ts$/, ""), id]));
    expect([...byFile.keys()].sort()).toEqual(["conversations-transcript", "messages-create", "messages-list", "messages-update", "upload-create"]);
    for (const [file, id] of byFile) {
      const vars = (fns[id]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(refId(vars.UPLOADS_BUCKET), file).toBe(bucketId);
      const writes = ["upload-create", "messages-create", "messages-update"].includes(file);
      expect([...actionsOn(t, id, bucketId!)].sort(), file).toEqual(writes ? ["s3:GetObject", "s3:PutObject"] : ["s3:GetObject"]);
    }
  });

});
