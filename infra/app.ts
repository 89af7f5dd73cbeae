/**
 * The CDK app (cdk.json: `npx tsx infra/app.ts`). Bundles the functions, then builds the stack
 * for the `stage` context: `npx cdk synth -c stage=development`. The cdk-nag AwsSolutions pack
 * runs at synth (infra/nag.ts): an unacknowledged finding fails it.
 */
import { buildFunctions, MAX_BUNDLE_BYTES } from "./build.ts";
import { addNagChecks } from "./nag.ts";
import { buildApp } from "./stack.ts";

const built = await buildFunctions();
for (const b of built) {
  if (b.bytes > MAX_BUNDLE_BYTES) console.error(`warning: ${b.fn} bundle is ${b.bytes} bytes (limit ${MAX_BUNDLE_BYTES})`);
}

const { app } = buildApp();
addNagChecks(app);
app.synth();
