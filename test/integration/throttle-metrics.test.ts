/**
 * The per-rule throttle metric: every request a rule denies prints one EMF line
 * "Throttled" with dimension Rule, in METRICS_NAMESPACE; allowed requests print none.
 * Real handler in production mode against DynamoDB Local.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { setClock } from "../../shared/clock.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

const ENV = { APP_ENV: "production", THROTTLE_LIMIT: "2", METRICS_NAMESPACE: "Conversa/test" };
const saved = Object.fromEntries(Object.keys(ENV).map((k) => [k, process.env[k]]));
let acc: AccountFixture;

beforeAll(async () => {
  acc = await makeAccount("Metered");
  Object.assign(process.env, ENV);
  resetConfig();
  // One pinned instant, mid-minute: the four requests share the global rule's fixed window.
  const pinned = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
  setClock(() => pinned.getTime());
});

afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetConfig();
  setClock(undefined);
});

describe("Throttled metric", () => {
  it("prints one line per denied request, with the rule that denied it", async () => {
    const lines = vi.spyOn(console, "log");
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        statuses.push((await invoke("accounts.show", { params: { account_id: acc.accountId }, key: acc.agentKey, sourceIp: "198.19.7.7" })).status);
      }
      const emf = lines.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, any>);
      expect(statuses).toEqual([200, 200, 429, 429]);
      expect(emf).toHaveLength(2);
      for (const m of emf) {
        expect(m).toMatchObject({ Throttled: 1, Rule: "global" });
        expect(m._aws.CloudWatchMetrics).toEqual([{ Namespace: "Conversa/test", Dimensions: [["Rule"]], Metrics: [{ Name: "Throttled", Unit: "Count" }] }]);
      }
    } finally {
      lines.mockRestore();
    }
  });
});
