/**
 * The tests the mutation run (stryker.config.mjs) judges mutants with: the unit tests of the
 * mutated modules (limiter, delivery, checkout, paging) and the integration files that exercise
 * them against DynamoDB Local and real receivers on 127.0.0.1. With per-test coverage each mutant
 * runs only the tests that reached its code: the whole run takes about 10 minutes on 2 cores
 * (docs/mutation.md). Same setup as vitest.config.ts.
 */
import { defineConfig } from "vitest/config";
import base, { DYNAMO_SETUP } from "./vitest.config.ts";

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    projects: undefined,
    ...DYNAMO_SETUP,
    include: [
      "test/unit/ratelimit-*.test.ts",
      "test/unit/webhook-*.test.ts",
      "test/unit/checkout-*.test.ts",
      "test/unit/paging.test.ts",
      "test/unit/search-index.test.ts",
      "test/unit/reports.test.ts",
      "test/unit/form-params.test.ts",
      "test/integration/form-bodies.test.ts",
      "test/integration/ratelimit-limiter.test.ts",
      "test/integration/checkout.test.ts",
      "test/integration/checkout-subscribe.test.ts",
      "test/integration/checkout-billing.test.ts",
      "test/integration/checkout-links.test.ts",
      "test/integration/checkout-subscribe-replay.test.ts",
      "test/integration/webhook-deliveries.test.ts",
      "test/integration/delivery-log-first.test.ts",
      "test/integration/delivery-metrics.test.ts",
      "test/integration/webhook-pacing.test.ts",
      "test/integration/webhooks.test.ts",
      "test/integration/webhooks-ops.test.ts",
      "test/integration/contacts.test.ts",
      "test/integration/report-shards.test.ts",
      "test/integration/reports-widget.test.ts",
    ],
  },
});
