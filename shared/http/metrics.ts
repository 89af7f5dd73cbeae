/**
 * CloudWatch metrics in Embedded Metric Format: one JSON log line per metric set, turned into
 * metrics by CloudWatch Logs with no API call on the request path. Namespace "Conversa".
 */
export const METRICS_NAMESPACE = "Conversa";

export type Unit = "Count" | "Milliseconds";

export function emitMetric(
  name: string,
  value: number,
  unit: Unit,
  dimensions: Readonly<Record<string, string>> = {},
  extra: Readonly<Record<string, string | number>> = {},
): void {
  const dims = Object.keys(dimensions);
  console.log(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [dims], Metrics: [{ Name: name, Unit: unit }] }],
      },
      ...extra,
      ...dimensions,
      [name]: value,
    }),
  );
}
