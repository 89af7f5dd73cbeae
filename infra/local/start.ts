/**
 * `npm start`: runs the whole system locally and prints how to call it.
 * PORT (default 3000) and SANDBOX_DATA_DIR (default .data) are the sandbox's own settings; every
 * documented variable set in the environment (APP_ENV, THROTTLE_*, RATE_LIMIT_*, WEBHOOK_*...)
 * wins over the sandbox's defaults, as it does in AWS.
 */
import { JavaMissingError } from "./dynamo.ts";
import { startSandbox } from "./sandbox.ts";
import { throttleActive } from "../../shared/config.ts";

// The AWS SDK warns that its Node 20 support ends in 2027; the deployed Lambdas run nodejs22.x.
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
process.env["LOG_LEVEL"] ??= "info";

const port = Number(process.env["PORT"] ?? 3000);
const dataDir = process.env["SANDBOX_DATA_DIR"] ?? ".data";

try {
  const sandbox = await startSandbox({ port, dataDir });
  const { info, config } = sandbox;
  const out = [
    "",
    "Conversa sandbox is running.",
    "",
    `  APP_ENV       ${config.APP_ENV}   (throttling ${throttleActive(config) ? `on, ${config.THROTTLE_LIMIT} requests a minute per IP` : "off"})`,
    `  API base      ${info.apiBase}`,
    `  Checkout page ${info.apiBase}/checkout`,
    `  Demo site     ${info.apiBase}/   (plans -> checkout link -> checkout page)`,
    `  Account id    ${info.accountId}`,
    `  Admin key     ${info.adminApiKey}   (${info.adminEmail})`,
    `  Agent key     ${info.agentApiKey}   (${info.agentEmail})`,
    `  Password      ${info.password}   (both users)`,
    `  Saved to      ${dataDir}/sandbox.json`,
    `  Mail          ${sandbox.mailDir}/*.eml   (password recovery)`,
    `  Events        ${sandbox.eventsDir}/*.json   (operator events: subscriptions, quotes, disabled webhooks)`,
    "",
    "Try:",
    `  curl -s -H "api_access_token: ${info.adminApiKey}" ${info.apiBase}/api/v1/accounts/${info.accountId}`,
    "",
    "Ctrl-C stops everything (data is kept in the data directory).",
    "",
  ];
  console.log(out.join("\n"));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the sandbox...`);
    sandbox.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
} catch (err) {
  if (err instanceof JavaMissingError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
