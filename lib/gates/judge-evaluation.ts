import { currentProtocol, type TaskId, WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";
import { buildRecord } from "./record/build-record";
import type { CacheHit, GapRecord, LatencySummary, ResultRecord, SamplingAuditRecord } from "./record/schema";
import { fidelity } from "./stats/fidelity";
import { sampledGap } from "./stats/gate-verdicts";
import { greedyAgreement } from "./stats/greedy-agreement";
import { lengthRatio, pairReplies, type ReplyLength } from "./stats/length-ratio";
import { memoryVerdict, peakMib } from "./stats/memory";
import { findOffload } from "./stats/offload-log";
import { type PitInterval, samplingAudit } from "./stats/sampling-audit";
import { breaksFailuresRule, type PassSpeeds, passRatio } from "./stats/specscore";
import type { AnswerCount } from "./stats/unanswered";

/** A sampled reply as the stock engine scored it under the target. */
export interface ReplyScore {
  /** Reply tokens scored. */
  tokens: number;
  /** Σ of the target's log-probabilities of those tokens. */
  logprobSum: number;
  /** Those tokens whose rank among the target's choices was not 1. */
  notFirstChoice: number;
  /**
   * Each scored token's randomized-PIT interval under the requested sampling (the sampling audit, shown and not
   * gated); absent where the reply was not audited (its conversation cut for scoring, or the audit off).
   */
  pit?: readonly PitInterval[];
}

/** A workload's acceptance as the engine reported it, and whether that report is possible. */
export interface WorkloadAcceptance {
  tokensPerStep: number;
  credible: boolean;
  why: string | null;
}

/** What the check driver measured; null marks a request left unanswered. */
export interface CheckMeasurements {
  /** Greedy replies in the target's token ids, per probe prompt, in the same order for both engines. */
  greedy: { candidate: readonly (readonly number[] | null)[]; stock: readonly (readonly number[] | null)[] };
  /** Each engine's sampled replies scored by the stock engine; a reply that could not be scored counts against its engine. */
  sampled: { candidate: readonly (ReplyScore | null)[]; stock: readonly (ReplyScore | null)[] };
  /** Per fixed text, the log-probabilities each engine gave the text's tokens, in the same order for both. */
  fidelity: { candidate: readonly (readonly number[] | null)[]; stock: readonly (readonly number[] | null)[] };
}

/** Everything measured in one evaluation, as the pipeline hands it over. */
export interface EvaluationInputs {
  task: TaskId;
  /** Per workload, each pass's ratio, or both engines' speeds and failures on it (then the pass rule applies). */
  passes: Record<WorkloadId, readonly (number | PassSpeeds)[]>;
  checks: CheckMeasurements;
  /** Per workload, each engine's answered timed replies with their lengths in the target's tokens. */
  lengths: Record<WorkloadId, { candidate: readonly ReplyLength[]; stock: readonly ReplyLength[] }>;
  /** Device memory (MiB), sampled from outside every 0.5 s; only the candidate's timed passes are gated. */
  memory: {
    /** The candidate's readings while a timed pass ran (start to end, warm-ups excluded): what the gate judges. */
    samplesMib: readonly number[];
    /** The stock engine's readings over the same passes, under the same budget: shown beside it, never gated. */
    stockSamplesMib?: readonly number[];
    /** The candidate's readings from its start to its first timed pass (loading, the first warm-up): shown apart. */
    startupSamplesMib?: readonly number[];
    deviceTotalMib: number;
    gpuMemoryUtilization?: number;
  };
  /** The candidate engine's start-up log lines, from every start. */
  startupLog: readonly string[];
  /**
   * Per workload, the engine's own report of tokens per verify step: a number (taken as credible), or with the
   * verdict on whether it is possible at all (lib/judge acceptanceCredibility); shown, never scored.
   */
  acceptance: Record<WorkloadId, number | WorkloadAcceptance | null>;
  latency?: Partial<Record<WorkloadId, { candidate: LatencySummary | null; stock: LatencySummary | null }>>;
  cacheHits?: Partial<Record<WorkloadId, { candidate: CacheHit | null; stock: CacheHit | null }>>;
  reproducibility: {
    profile: string;
    seeds: Record<string, number | string>;
    engine_archive_sha256: string | null;
    speculator_commit: string | null;
    speculator_sha256: string | null;
    image: string;
    device: string;
  };
}

const answerCount = (xs: readonly unknown[]): AnswerCount => ({
  requests: xs.length,
  unanswered: xs.filter((x) => x === null).length,
});

function checksGap(checks: CheckMeasurements, pick: (s: ReplyScore) => number): GapRecord | null {
  return sampledGap(checks.sampled.candidate, checks.sampled.stock, pick);
}

const perWorkload = <T, U>(values: Record<WorkloadId, T>, f: (v: T) => U) =>
  Object.fromEntries(WORKLOAD_IDS.map((w) => [w, f(values[w])])) as Record<WorkloadId, U>;

/** A stable number from the evaluation's seeds: the audit's uniform draws repeat exactly with the evaluation. */
function auditSeedOf(seeds: Record<string, number | string>): number {
  let h = 0x811c9dc5;
  for (const ch of `sampling-audit:${JSON.stringify(seeds)}`) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The sampling audit of both engines' timed replies, as the stock engine scored them (shown, never gated). */
function auditOf(checks: CheckMeasurements, seeds: Record<string, number | string>): SamplingAuditRecord | null {
  const seed = auditSeedOf(seeds);
  const candidate = samplingAudit(
    checks.sampled.candidate.map((s) => s?.pit),
    seed,
  );
  const stock = samplingAudit(
    checks.sampled.stock.map((s) => s?.pit),
    seed + 1,
  );
  if (!candidate && !stock) return null;
  const { temperature, topK, topP } = currentProtocol().sampling;
  return { gated: false, sampling: { temperature, top_k: topK, top_p: topP }, candidate, stock };
}

/** Judges one evaluation from everything measured: the figures, every gate's verdict, SpecScore and the record. */
export function judgeEvaluation(inputs: EvaluationInputs): ResultRecord {
  const protocol = currentProtocol();
  const z = protocol.gates.z;
  const passes = {} as Record<WorkloadId, number[]>;
  const brokenPasses = {} as Record<WorkloadId, number>;
  const lengths = {} as Record<WorkloadId | "pooled", ReturnType<typeof lengthRatio>>;
  const pooled: { candidate: number; stock: number }[] = [];
  for (const w of WORKLOAD_IDS) {
    passes[w] = inputs.passes[w].map((p) => (typeof p === "number" ? p : passRatio(p)));
    brokenPasses[w] = inputs.passes[w].filter((p) => typeof p !== "number" && breaksFailuresRule(p)).length;
    const pairs = pairReplies(inputs.lengths[w].candidate, inputs.lengths[w].stock);
    pooled.push(...pairs);
    lengths[w] = lengthRatio(pairs, z);
  }
  lengths.pooled = lengthRatio(pooled, z);

  const { checks } = inputs;
  const utilization = inputs.memory.gpuMemoryUtilization ?? protocol.engine.gpuMemoryUtilization;
  const memory = {
    ...memoryVerdict(
      inputs.memory.samplesMib,
      inputs.memory.deviceTotalMib,
      utilization,
      protocol.tasks[inputs.task].gates.memorySlackMib.value,
    ),
    ...(inputs.memory.stockSamplesMib ? { stock_peak_mib: peakMib(inputs.memory.stockSamplesMib) } : {}),
    ...(inputs.memory.startupSamplesMib ? { startup_peak_mib: peakMib(inputs.memory.startupSamplesMib) } : {}),
    device_mib: inputs.memory.deviceTotalMib,
    gpu_memory_utilization: utilization,
  };
  return buildRecord({
    task: inputs.task,
    passes,
    brokenPasses,
    greedyAgreement: greedyAgreement(checks.greedy.candidate, checks.greedy.stock).agreement,
    likelihood: checksGap(checks, (s) => s.logprobSum),
    argmax: checksGap(checks, (s) => s.notFirstChoice),
    fidelity: fidelity(checks.fidelity.candidate, checks.fidelity.stock).fidelity,
    lengths,
    memory,
    offload: findOffload(inputs.startupLog),
    answers: {
      greedy: { candidate: answerCount(checks.greedy.candidate), stock: answerCount(checks.greedy.stock) },
      likelihood: { candidate: answerCount(checks.sampled.candidate), stock: answerCount(checks.sampled.stock) },
      fidelity: { candidate: answerCount(checks.fidelity.candidate), stock: answerCount(checks.fidelity.stock) },
    },
    acceptance: perWorkload(inputs.acceptance, (a) => (a === null || typeof a === "number" ? a : a.tokensPerStep)),
    acceptanceReport: perWorkload(inputs.acceptance, (a) =>
      a === null ? null : typeof a === "number" ? { credible: true, why: null } : { credible: a.credible, why: a.why },
    ),
    latency: inputs.latency,
    cacheHits: inputs.cacheHits,
    reproducibility: inputs.reproducibility,
    samplingAudit: auditOf(checks, inputs.reproducibility.seeds),
  });
}
