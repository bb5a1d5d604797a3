import type { EngineCounters } from "../scheduler/engine-core";

export interface MetricsSnapshot {
  modelName: string;
  running: number;
  waiting: number;
  kvUsage: number;
  prefixQueries: number;
  prefixHits: number;
  counters: EngineCounters;
  speculative: boolean;
}

/** Prometheus text with the pinned vLLM's metric names and labels. */
export function renderMetrics(m: MetricsSnapshot): string {
  const labels = `engine="0",model_name="${m.modelName}"`;
  const lines: string[] = [];
  const metric = (name: string, type: "gauge" | "counter", help: string, values: [string, number][]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [extra, v] of values) lines.push(`${name}{${labels}${extra}} ${Number.isInteger(v) ? v.toFixed(1) : v}`);
  };
  const c = m.counters;
  metric("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", [["", m.running]]);
  metric("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", [["", m.waiting]]);
  metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", [["", m.kvUsage]]);
  metric("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.", [
    ["", m.prefixQueries],
  ]);
  metric("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.", [
    ["", m.prefixHits],
  ]);
  metric("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.", [
    ["", c.preemptions],
  ]);
  metric("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", [["", c.promptTokens]]);
  metric("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", [
    ["", c.generationTokens],
  ]);
  metric("vllm:request_success_total", "counter", "Count of successfully processed requests.", [
    [',finished_reason="stop"', c.finished.stop],
    [',finished_reason="length"', c.finished.length],
    [',finished_reason="abort"', c.finished.abort],
  ]);
  if (m.speculative) {
    metric("vllm:spec_decode_num_drafts_total", "counter", "Number of spec decoding drafts.", [["", c.drafts]]);
    metric("vllm:spec_decode_num_draft_tokens_total", "counter", "Number of draft tokens.", [["", c.draftTokens]]);
    metric("vllm:spec_decode_num_accepted_tokens_total", "counter", "Number of accepted tokens.", [
      ["", c.acceptedTokens],
    ]);
    metric(
      "vllm:spec_decode_num_accepted_tokens_per_pos_total",
      "counter",
      "Accepted tokens per draft position.",
      c.acceptedPerPos.map((v, i) => [`,position="${i}"`, v]),
    );
  }
  return `${lines.join("\n")}\n`;
}
