import { afterEach, describe, expect, it, vi } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { emitMetric, emitMetrics } from "../../shared/observability/metrics.ts";

describe("EMF metrics switch (METRICS_ENABLED)", () => {
  const before = process.env["METRICS_ENABLED"];
  afterEach(() => {
    if (before === undefined) delete process.env["METRICS_ENABLED"];
    else process.env["METRICS_ENABLED"] = before;
    resetConfig();
    vi.restoreAllMocks();
  });

  const emitted = (value: string | undefined): string[] => {
    if (value === undefined) delete process.env["METRICS_ENABLED"];
    else process.env["METRICS_ENABLED"] = value;
    resetConfig();
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((l: string) => void lines.push(l));
    emitMetric("Throttled", 1, "Count", { Rule: "login" });
    emitMetrics([{ name: "DeliverySucceeded", value: 1, unit: "Count" }]);
    vi.restoreAllMocks();
    return lines;
  };

  it("emits by default (AWS), one EMF line per call", () => {
    const lines = emitted(undefined);
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ Rule: "login", Throttled: 1, _aws: { CloudWatchMetrics: [{ Metrics: [{ Name: "Throttled" }] }] } });
  });

  it("emits nothing when turned off (the sandbox's default)", () => {
    expect(emitted("false")).toEqual([]);
    expect(emitted("true")).toHaveLength(2);
  });
});
