import { defineConfig } from "vitest/config";

/** What every test that talks to DynamoDB needs: one DynamoDB Local per run, a table per file. */
export const DYNAMO_SETUP = {
  globalSetup: ["test/setup/global-dynamo.ts"],
  setupFiles: ["test/setup/per-file-table.ts"],
};

export default defineConfig({
  test: {
    pool: "forks",
    // The AWS SDK warns that its Node 20 support ends in 2027; the Lambdas run nodejs22.x.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // 2 cores: DynamoDB Local (Java) + two test workers.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: "app", include: ["test/{unit,integration,e2e,browser}/**/*.test.ts"], ...DYNAMO_SETUP },
      },
      {
        extends: true,
        // The stack's tests need no DynamoDB and share one process: a process's first synthesis
        // loads and compiles most of aws-cdk-lib (about 7 s; the next take 1-2 s). No file
        // depends on state another leaves: each synthesizes its own templates.
        test: { name: "infra", include: ["test/infra/**/*.test.ts"], isolate: false },
      },
    ],
  },
});
