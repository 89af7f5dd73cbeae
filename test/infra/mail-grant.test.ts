/** Password-recovery mail in the stack: only the POST /auth/password function may call SES, as MAIL_FROM. */
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp, MAIL_SENDING_FUNCTION } from "../../infra/stack.ts";
import { DEFAULT_MAIL_FROM } from "../../shared/config.ts";
import { stubBundles, type StubBundles } from "../support/stub-bundles.ts";

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
}

let stubs: StubBundles | undefined;
let byDefault: Map<string, Statement[]>;
let byContext: Map<string, Statement[]>;

// Synthesis is slow on a busy machine: done once per context, under the hook timeout, over
// stand-in bundles (the roles matter here, not the code).
beforeAll(async () => {
  stubs = stubBundles("conversa-infra-mail-");
  byDefault = sesStatements({ stage: "production" });
  byContext = sesStatements({ stage: "production", MAIL_FROM: "accounts@mail.conversa.test" });
}, 180_000);

afterAll(async () => {
  stubs?.remove();
});

/** SES statements of each function's role, by function name. */
function sesStatements(context: Record<string, unknown>): Map<string, Statement[]> {
  const { stack } = buildApp({ app: new App({ context }), assetsDir: stubs!.dir });
  const t = Template.fromStack(stack);
  const out = new Map<string, Statement[]>();
  const policies = Object.values(t.findResources("AWS::IAM::Policy")) as { Properties: { Roles: { Ref: string }[]; PolicyDocument: { Statement: Statement[] } } }[];
  for (const [name, fn] of stack.functions) {
    const roleId = stack.getLogicalId(fn.role!.node.defaultChild as never);
    const statements = policies
      .filter((p) => p.Properties.Roles.some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((s) => [s.Action].flat().some((a) => a.startsWith("ses:")));
    out.set(name, statements);
  }
  return out;
}

describe("SES permission", () => {
  it("is granted to the password-request function only, scoped to the sender identity", () => {
    const byFn = byDefault;

    for (const [name, statements] of byFn) if (name !== MAIL_SENDING_FUNCTION) expect(statements, name).toEqual([]);
    const mine = byFn.get(MAIL_SENDING_FUNCTION)!;
    expect(mine).toHaveLength(1);
    expect(mine[0]!.Action).toBe("ses:SendEmail");
    expect(mine[0]!.Condition).toEqual({ StringEquals: { "ses:FromAddress": DEFAULT_MAIL_FROM } });
    const resources = JSON.stringify(mine[0]!.Resource);
    expect(resources).toContain(`:identity/${DEFAULT_MAIL_FROM}`);
    expect(resources).toContain(":identity/example.com");
    expect(resources).not.toContain("*");
  });

  it("follows MAIL_FROM given as context", () => {
    const mine = byContext.get(MAIL_SENDING_FUNCTION)!;

    expect(mine[0]!.Condition).toEqual({ StringEquals: { "ses:FromAddress": "accounts@mail.conversa.test" } });
    expect(JSON.stringify(mine[0]!.Resource)).toContain(":identity/mail.conversa.test");
  });
});
