import { describe, expect, it } from "vitest";
import { findOffload } from "./offload-log";

describe("findOffload", () => {
  it("finds weight offload in vLLM's non-default args and in flags", () => {
    const f = findOffload([
      "INFO 10-24 01:02:03 [api_server.py:1] non-default args: {'model': '/target', 'cpu_offload_gb': 8.0, 'enable_prefix_caching': True}",
      "+ vllm serve /target --cpu-offload-gb 12 --port 8000",
      "offload_group_size=4",
    ]);
    expect(f.map((x) => x.kind)).toEqual(["weights", "weights", "weights"]);
    expect(f[0]!.what).toMatch(/cpu_offload_gb/);
  });

  it("finds KV blocks in host memory", () => {
    const f = findOffload([
      "non-default args: {'kv_offloading_size': 16.0, 'kv_offloading_backend': 'native'}",
      "kv_transfer_config=KVTransferConfig(kv_connector='OffloadingConnector', kv_role='kv_both')",
      "INFO # GPU blocks: 60000, # CPU blocks: 2048",
      "non-default args: {'model': '/target', 'swap_space': 16}",
      "vllm serve /target --swap-space 8",
      "CPU KV cache size: 400000 tokens",
    ]);
    expect(f.every((x) => x.kind === "kv")).toBe(true);
    expect(new Set(f.map((x) => x.line)).size).toBe(6);
  });

  it("passes a stock engine's start-up log", () => {
    expect(
      findOffload([
        "INFO non-default args: {'model': '/target', 'enable_prefix_caching': True, 'gpu_memory_utilization': 0.9}",
        "Initializing a V1 LLM engine (v0.25.1) with config: model='/target', dtype=torch.bfloat16, cpu_offload_gb=0, swap_space=4",
        "INFO [gpu_worker.py:1] Available KV cache memory: 120.5 GiB",
        "INFO [kv_cache_utils.py:1] GPU KV cache size: 1,050,000 tokens",
        "# GPU blocks: 60000, # CPU blocks: 0",
        "kv_offloading_backend: None",
        "--kv-offloading-size 0",
      ]),
    ).toEqual([]);
  });
});
