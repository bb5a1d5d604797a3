import { renameSync, writeFileSync } from "node:fs";
import type { SpeculatorMethod } from "../speculators/drafters";

const MIB = 1024 * 1024;

/** A B200 as nvidia-smi reports it. */
export const DEVICE_TOTAL_MIB = 183_359;
export const CUDA_CONTEXT_MIB = 1024;
/** Qwen3-8B in BF16: 8.19B parameters × 2 bytes. */
export const TARGET_WEIGHTS_MIB = 15_622;
/** vLLM's profiled activation peak, set so the stock engine's KV cache at 0.90 is 1.05M tokens (protocol section 4). */
export const ACTIVATION_PEAK_MIB = 1_745;
/** 36 layers × 8 KV heads × 128 dims × (K, V) × 2 bytes. */
export const TARGET_KV_BYTES_PER_TOKEN = 36 * 8 * 128 * 2 * 2;
export const BLOCK_SIZE = 16;

/** What a speculator holds: its weights and its KV bytes per token (which share the target's block pool). */
export const SPECULATOR_FOOTPRINT: Record<SpeculatorMethod, { weightsMib: number; kvBytesPerToken: number }> = {
  ngram: { weightsMib: 0, kvBytesPerToken: 0 },
  // Qwen3-0.6B: 0.6B parameters in BF16; 28 layers × 8 KV heads × 128 dims × 2 × 2 bytes.
  draft: { weightsMib: 1_144, kvBytesPerToken: 28 * 8 * 128 * 2 * 2 },
  // An EAGLE-3 head: one decoder layer, its fusion layer and a reduced LM head.
  eagle: { weightsMib: 763, kvBytesPerToken: 1 * 8 * 128 * 2 * 2 },
};

export interface MemoryPlan {
  kvCacheMib: number;
  kvTokens: number;
  blocks: number;
  /** Device memory the engine holds once started. */
  usedMib: number;
}

/**
 * vLLM's budget: the pool is `utilization × total`; weights and the activation peak come out of it, the rest is
 * the KV cache, shared by the target's and the speculator's layers. The CUDA context comes on top.
 */
export function planMemory(utilization: number, speculator: SpeculatorMethod | null): MemoryPlan {
  const pool = utilization * DEVICE_TOTAL_MIB;
  const spec = speculator ? SPECULATOR_FOOTPRINT[speculator] : { weightsMib: 0, kvBytesPerToken: 0 };
  const kvCacheMib = pool - TARGET_WEIGHTS_MIB - spec.weightsMib - ACTIVATION_PEAK_MIB;
  if (kvCacheMib <= 0) throw new Error(`GPU_MEMORY_UTILIZATION ${utilization} leaves no room for the KV cache`);
  const perToken = TARGET_KV_BYTES_PER_TOKEN + spec.kvBytesPerToken;
  const blocks = Math.floor((kvCacheMib * MIB) / (perToken * BLOCK_SIZE));
  return { kvCacheMib, kvTokens: blocks * BLOCK_SIZE, blocks, usedMib: Math.round(CUDA_CONTEXT_MIB + pool) };
}

/** Publishes memory in use as `nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader,nounits`. */
export class DeviceFile {
  private last = -1;
  constructor(private readonly path: string | undefined) {}

  write(usedMib: number): void {
    if (!this.path || usedMib === this.last) return;
    this.last = usedMib;
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${Math.round(usedMib)}, ${DEVICE_TOTAL_MIB}\n`);
    renameSync(tmp, this.path);
  }
}
