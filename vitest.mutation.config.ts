/**
 * The tests the mutation run (stryker.config.mjs) judges mutants with: the unit tests of the
 * mutated modules (limiter, delivery, checkout, paging). The integration files that also cover
 * them re-create their tables and fixtures for every mutant: a run with them was projected at
 * about 3 hours on this machine (docs/mutation.md). Same setup as vitest.config.ts.
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      "test/unit/ratelimit-*.test.ts",
      "test/unit/webhook-*.test.ts",
      "test/unit/checkout-*.test.ts",
      "test/unit/paging.test.ts",
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
    ],
  },
});
