import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/{unit,integration,infra,e2e,browser}/**/*.test.ts"],
    globalSetup: ["test/setup/global-dynamo.ts"],
    setupFiles: ["test/setup/per-file-table.ts"],
    pool: "forks",
    // The AWS SDK warns that its Node 20 support ends in 2027; the Lambdas run nodejs22.x.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // 2 cores: DynamoDB Local (Java) + two test workers.
    maxWorkers: 2,
  },
});
