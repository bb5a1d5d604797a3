import type { ReferenceSpeculator, SolutionKind } from "@/lib/protocol";

export type EngineRuntime = "sim" | "vllm";

/** The simulated engine's directory that plays each kind of reference on the simulated runtime. */
const SIM_ENGINE_FOR_KIND: Record<SolutionKind, string> = {
  other: "stock",
  ngram: "ngram",
  suffix: "ngram",
  draft: "draft",
  eagle3: "eagle",
  mtp: "eagle",
};

/**
 * The vLLM engine directory of each reference of protocol section 11, by key (relative to the repository). The
 * A/A run's candidate is the stock engine's own directory: the stock engine judged against itself.
 */
export const VLLM_REFERENCE_ENGINES: Readonly<Record<string, string>> = {
  stock: "lib/pods/stock-engines/vllm",
  "ngram-4": "lib/pods/reference-engines/vllm/ngram-4",
  "draft-qwen3-0.6b-4": "lib/pods/reference-engines/vllm/draft-qwen3-0.6b-4",
  "eagle3-redhatai-3": "lib/pods/reference-engines/vllm/eagle3-redhatai-3",
  "mtp-1": "lib/pods/reference-engines/vllm/mtp-1",
  "mtp-2": "lib/pods/reference-engines/vllm/mtp-2",
  "mtp-3": "lib/pods/reference-engines/vllm/mtp-3",
};

export type ReferenceEngine =
  | {
      ok: true;
      /** The engine directory, relative to the repository. */
      engineDir: string;
      /** The speculator checkpoint the submission names, pinned; null when the engine needs none. */
      speculator: { uri: string; revision: string } | null;
    }
  | { ok: false; why: string };

/**
 * What plays a reference on a runtime: on the simulated one, the simulated engine's mode for its kind (its
 * speculators are built in); on vLLM, the reference's own engine directory, and its checkpoint at the commit
 * the operators pinned.
 */
export function referenceEngine(runtime: EngineRuntime, reference: ReferenceSpeculator): ReferenceEngine {
  if (runtime === "sim")
    return { ok: true, engineDir: `lib/sim-engine/engines/${SIM_ENGINE_FOR_KIND[reference.kind]}`, speculator: null };
  const engineDir = VLLM_REFERENCE_ENGINES[reference.key];
  if (!engineDir) return { ok: false, why: `no engine directory plays ${reference.key} on the vLLM runtime` };
  if (!reference.checkpoint) return { ok: true, engineDir, speculator: null };
  if (!reference.checkpointRevision)
    return {
      ok: false,
      why: `its checkpoint ${reference.checkpoint} has no pinned commit yet (checkpointRevision in lib/protocol/v1.ts)`,
    };
  return { ok: true, engineDir, speculator: { uri: reference.checkpoint, revision: reference.checkpointRevision } };
}
