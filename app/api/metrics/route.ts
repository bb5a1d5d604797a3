import { withMetricsToken } from "@/lib/http/with-metrics-token";
import { collectMetrics } from "@/lib/metrics/collect-metrics";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus } from "@/lib/metrics/prometheus-text";

export const dynamic = "force-dynamic";

/** Prometheus' scrape: the queue, evaluations by status, durations, GPU seconds, pod failures (METRICS_TOKEN). */
export const GET = withMetricsToken(async () => {
  return new Response(renderPrometheus(await collectMetrics()), {
    headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" },
  });
});
