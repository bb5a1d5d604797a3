import { describe, expect, it } from "vitest";
import { podFailureOf } from "./pod-failure";
import { renderPrometheus } from "./prometheus-text";

describe("renderPrometheus", () => {
  it("writes gauges and counters with HELP, TYPE and escaped labels, as the 0.0.4 text format has them", () => {
    const text = renderPrometheus([
      { name: "arena_queue_up", help: "1 while\nup", type: "gauge", samples: [{ labels: {}, value: 1 }] },
      {
        name: "arena_gpu_seconds_total",
        help: "seconds",
        type: "counter",
        samples: [{ labels: { status: "scored", task: 'q"3\\x' }, value: 12.5 }],
      },
    ]);
    expect(text).toBe(
      [
        "# HELP arena_queue_up 1 while\\nup",
        "# TYPE arena_queue_up gauge",
        "arena_queue_up 1",
        "# HELP arena_gpu_seconds_total seconds",
        "# TYPE arena_gpu_seconds_total counter",
        'arena_gpu_seconds_total{status="scored",task="q\\"3\\\\x"} 12.5',
        "",
      ].join("\n"),
    );
  });

  it("writes a histogram as cumulative buckets up to +Inf, its sum and its count", () => {
    const text = renderPrometheus([
      {
        name: "d_seconds",
        help: "d",
        type: "histogram",
        buckets: [1, 10],
        series: [{ labels: { phase: "fetch" }, values: [0.5, 1, 7, 30] }],
      },
    ]);
    expect(text.split("\n").slice(2, -1)).toEqual([
      'd_seconds_bucket{phase="fetch",le="1"} 2',
      'd_seconds_bucket{phase="fetch",le="10"} 3',
      'd_seconds_bucket{phase="fetch",le="+Inf"} 4',
      'd_seconds_sum{phase="fetch"} 38.5',
      'd_seconds_count{phase="fetch"} 4',
    ]);
  });
});

describe("podFailureOf", () => {
  it("reads why a pod failed from the reason the worker stored, and nothing from other voids", () => {
    expect(podFailureOf("the pod was lost (unschedulable)")).toBe("unschedulable");
    expect(podFailureOf("the pod was lost (oom-killed)")).toBe("oom-killed");
    expect(podFailureOf("the pod was lost (the pod ended without a result)")).toBe("no-result");
    expect(podFailureOf("the evaluation's worker was lost 3 times")).toBe("worker-lost");
    expect(podFailureOf("the stock engine did not start: exit 1")).toBeNull();
    expect(podFailureOf(null)).toBeNull();
  });
});
