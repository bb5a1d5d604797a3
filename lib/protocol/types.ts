export const TASK_IDS = ["qwen3-8b", "qwen35-27b"] as const;
export type TaskId = (typeof TASK_IDS)[number];

export const WORKLOAD_IDS = ["solo", "team", "busy"] as const;
export type WorkloadId = (typeof WORKLOAD_IDS)[number];

export const SPLITS = ["dev", "test"] as const;
export type Split = (typeof SPLITS)[number];

export const SOLUTION_KINDS = ["ngram", "suffix", "draft", "eagle3", "mtp", "other"] as const;
export type SolutionKind = (typeof SOLUTION_KINDS)[number];

export const ACCOUNT_KINDS = ["participant", "study", "reference", "admin"] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** A value set from the arena's own measurements (protocol section 10), with its evidence. */
export interface Calibrated<T> {
  value: T;
  calibrated: true;
  evidence: string;
}

export interface TaskSpec {
  id: TaskId;
  name: string;
  target: { repository: string; revision: string; dtype: "bfloat16"; textOnly: boolean };
  gpu: string;
  maxModelLen: number;
  /** Decoder layers by attention kind, as the board shows them. */
  attention: { full: number; linear: number; linearKind: string | null };
  lanes: Record<WorkloadId, number>;
  /** The stock engine's KV cache at 0.90 of the device and a live session's mean footprint (section 4). */
  busy: { kvCacheTokens: number; sessionFootprintTokens: number; fillShare: number };
  languageModelOnly: boolean;
  gates: GateLimits;
  speedNoise: { meanAbsError: number; maxAbsError: number; evaluations: number };
  references: ReferenceSpeculator[];
}

export interface GateLimits {
  fidelityCeiling: Calibrated<number>;
  likelihoodBound: Calibrated<number>;
  argmaxBound: Calibrated<number>;
  /** null where the task has no greedy-agreement floor. */
  greedyAgreementFloor: Calibrated<number | null>;
  memorySlackMib: Calibrated<number>;
}

export interface ReferenceSpeculator {
  key: string;
  label: string;
  kind: SolutionKind;
  tokens: number | null;
  checkpoint: string | null;
  /**
   * The checkpoint's pinned commit (40 hex digits), which the operators fill: a reference with a checkpoint runs
   * on the vLLM runtime only once it is pinned.
   */
  checkpointRevision?: string | null;
}

export interface WorkloadSpec {
  id: WorkloadId;
  interleave: number;
  passSeconds: number;
  speed: "request-time" | "all-lanes-busy";
  description: string;
}

export interface Profile {
  /** `null` for the full protocol; an evaluation under a named profile is labelled and never ranked. */
  name: string;
  description: string;
  passes: number;
  passSeconds: Record<WorkloadId, number>;
  graceSeconds: number;
  /** Lanes per workload, when the profile caps them (a test machine has 2 cores). */
  lanesCap: Partial<Record<WorkloadId, number>>;
  greedyProbes: number;
  greedyMaxTokens: number;
  likelihoodReplies: number;
  fidelityTexts: number;
  healthTimeoutSeconds: number;
  /** The largest reply budget a timed turn may ask for under this profile (null: the session's own). */
  maxTokensCap: number | null;
}
