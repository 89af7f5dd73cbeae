/**
 * CloudWatch metrics in Embedded Metric Format: one JSON log line per metric set, turned into
 * metrics by CloudWatch Logs with no API call on the request path. Namespace METRICS_NAMESPACE
 * ("Conversa" by default; the stack sets "Conversa/<stage>").
 */
import { config } from "../config.ts";

export const METRICS_NAMESPACE = "Conversa";

/** METRICS_ENABLED and METRICS_NAMESPACE; the defaults if the configuration cannot be read. */
function settings(): { readonly enabled: boolean; readonly namespace: string } {
  try {
    const c = config();
    return { enabled: c.METRICS_ENABLED, namespace: c.METRICS_NAMESPACE };
  } catch {
    return { enabled: true, namespace: METRICS_NAMESPACE };
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
  write(dimensions, [{ name, value, unit }], extra);
}

export interface MetricValue {
  readonly name: string;
  readonly value: number;
  readonly unit: Unit;
}

/** Several dimensionless metrics in one EMF line. */
export function emitMetrics(metrics: readonly MetricValue[]): void {
  if (metrics.length) write({}, metrics);
}

/** One EMF line: the `_aws` block naming the metrics, then the dimension and metric values. */
function write(
  dimensions: Readonly<Record<string, string>>,
  metrics: readonly MetricValue[],
  extra: Readonly<Record<string, string | number>> = {},
): void {
  const { enabled, namespace } = settings();
  if (!enabled) return;
  console.log(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [Object.keys(dimensions)], Metrics: metrics.map((m) => ({ Name: m.name, Unit: m.unit })) }],
      },
      ...extra,
      ...dimensions,
      ...Object.fromEntries(metrics.map((m) => [m.name, m.value])),
    }),
  );
}
