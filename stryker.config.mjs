// Mutation testing (npm run test:mutation; not part of npm test): docs/mutation.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  mutate: [
    "shared/ratelimit/**/*.ts",
    "shared/delivery/**/*.ts",
    "shared/domain/checkout/**/*.ts",
    "shared/domain/paging.ts",
    "shared/domain/search-index.ts",
    "shared/db/contact-search.ts",
    "shared/domain/reports.ts",
    "shared/db/reports-repo.ts",
    "shared/domain/webhooks.ts",
    "shared/http/form-params.ts",
  ],
  // TypeScript 7 has no JS API for Stryker to rewrite tsconfig.json with; nothing here needs it (vitest strips types).
  tsconfigFile: "tsconfig.stryker-none.json",
  coverageAnalysis: "perTest",
  ignoreStatic: true,
  // 2 cores: two test processes.
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
