/**
 * Delivery metrics (EMF, dimensionless, namespace METRICS_NAMESPACE), one line per attempt:
 * DeliverySucceeded, DeliveryRetried (failed, another attempt scheduled), DeliveryFailed (failed,
 * no attempt left: the alarm "DeliveriesFailing" counts these), each a Count of 1, plus
 * DeliveryLatency (Milliseconds, the receiver's answer time). Messages that made no request
 * (stale, duplicate, not due yet, webhook deleted) emit nothing.
 */
import { emitMetrics } from "../observability/metrics.ts";

export const DELIVERY_METRIC = { succeeded: "DeliverySucceeded", retrying: "DeliveryRetried", failed: "DeliveryFailed" } as const;

/** What the metrics read of an attempt's outcome (the delivery use case's outcome has this shape). */
export interface AttemptRecord {
  readonly attempt?: { readonly status: keyof typeof DELIVERY_METRIC; readonly durationMs: number };
}

export function recordDeliveryMetrics(outcome: AttemptRecord): void {
  const a = outcome.attempt;
  if (!a) return;
  emitMetrics([
    { name: DELIVERY_METRIC[a.status], value: 1, unit: "Count" },
    { name: "DeliveryLatency", value: a.durationMs, unit: "Milliseconds" },
  ]);
}
