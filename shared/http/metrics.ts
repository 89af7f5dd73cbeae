/**
 * CloudWatch metrics in Embedded Metric Format: one JSON log line per metric set, turned into
 * metrics by CloudWatch Logs with no API call on the request path. Namespace METRICS_NAMESPACE
 * ("Conversa" by default; the stack sets "Conversa/<stage>").
 */
import { config } from "../config.ts";

export const METRICS_NAMESPACE = "Conversa";

function enabled(): boolean {
  try {
    return config().METRICS_ENABLED;
  } catch {
    return true;
  }
}

function namespace(): string {
  try {
    return config().METRICS_NAMESPACE;
  } catch {
    return METRICS_NAMESPACE;
  }
}

export type Unit = "Count" | "Milliseconds";

export function emitMetric(
  name: string,
  value: number,
  unit: Unit,
  dimensions: Readonly<Record<string, string>> = {},
  extra: Readonly<Record<string, string | number>> = {},
): void {
  if (!enabled()) return;
  const dims = Object.keys(dimensions);
  console.log(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [{ Namespace: namespace(), Dimensions: [dims], Metrics: [{ Name: name, Unit: unit }] }],
      },
      ...extra,
      ...dimensions,
      [name]: value,
    }),
  );
}

export interface MetricValue {
  readonly name: string;
  readonly value: number;
  readonly unit: Unit;
}

/** Several dimensionless metrics in one EMF line. */
export function emitMetrics(metrics: readonly MetricValue[]): void {
  if (metrics.length === 0 || !enabled()) return;
  console.log(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [{ Namespace: namespace(), Dimensions: [[]], Metrics: metrics.map((m) => ({ Name: m.name, Unit: m.unit })) }],
      },
      ...Object.fromEntries(metrics.map((m) => [m.name, m.value])),
    }),
  );
}
