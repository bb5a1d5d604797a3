import { currentProtocol, getTask, type TaskId, WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";
import { gapPasses } from "../stats/equivalence";
import { fidelityPasses, greedyPasses } from "../stats/gate-verdicts";
import { lengthPasses } from "../stats/length-ratio";
import type { OffloadFinding } from "../stats/offload-log";
import { geometricMean, median } from "../stats/specscore";
import { type AnswerCount, tooManyUnanswered } from "../stats/unanswered";
import { gapWithHalfWidth, gib, percent, ratioWithInterval, shortNumber } from "./format";
import { GATE_CHECKS, GATE_REASONS, REASON_ORDER, TABLE_ORDER, VOID_REASON, zeroSpeedReason } from "./reasons";
import {
  type CacheHit,
  type GapRecord,
  type GateKey,
  type GateRow,
  type LatencySummary,
  type LengthEntry,
  type Reproducibility,
  type ResultRecord,
  resultRecordSchema,
  type SamplingAuditRecord,
} from "./schema";

type PerEngine<T> = { candidate: T; stock: T };

/** The summarized figures of one evaluation, before any verdict: what the gates are judged on. */
export interface MeasuredFigures {
  task: TaskId;
  /** Each workload's pass ratios (the failed-requests rule already applied); its ratio is their median. */
  passes: Record<WorkloadId, readonly number[]>;
  /** Per workload, how many of its passes broke the failed-requests rule (and so count as 0); none when absent. */
  brokenPasses?: Partial<Record<WorkloadId, number>>;
  greedyAgreement: number | null;
  likelihood: GapRecord | null;
  argmax: GapRecord | null;
  fidelity: number | null;
  lengths: Record<WorkloadId | "pooled", LengthEntry>;
  /** The gated peak and its limit, then what is shown beside them (ResultRecord["memory"] says what each is). */
  memory: {
    peak_mib: number;
    allowed_mib: number;
    stock_peak_mib?: number | null;
    startup_peak_mib?: number | null;
    device_mib?: number;
    gpu_memory_utilization?: number;
  };
  offload: readonly OffloadFinding[];
  answers: Record<"greedy" | "likelihood" | "fidelity", PerEngine<AnswerCount>>;
  acceptance: Record<WorkloadId, number | null>;
  /** Whether each workload's acceptance report is possible (lib/judge acceptanceCredibility); credible when absent. */
  acceptanceReport?: Record<WorkloadId, { credible: boolean; why: string | null } | null>;
  /** The exact sampling audit of the timed replies: shown, never gated. */
  samplingAudit?: SamplingAuditRecord | null;
  latency?: Partial<Record<WorkloadId, PerEngine<LatencySummary | null>>>;
  cacheHits?: Partial<Record<WorkloadId, PerEngine<CacheHit | null>>>;
  reproducibility: Omit<Reproducibility, "protocol_version" | "task">;
}

const CHECKS = ["greedy", "likelihood", "fidelity"] as const;

const share = (c: AnswerCount) => (c.requests === 0 ? 0 : c.unanswered / c.requests);

/** Judges every gate on the task's limits and builds the stored record: verdicts, reason, SpecScore. */
export function buildRecord(f: MeasuredFigures): ResultRecord {
  const protocol = currentProtocol();
  const task = getTask(f.task, protocol);
  const z = protocol.gates.z;
  const limits = {
    greedy_agreement_floor: task.gates.greedyAgreementFloor.value,
    likelihood_bound: task.gates.likelihoodBound.value,
    argmax_bound: task.gates.argmaxBound.value,
    fidelity_ceiling: task.gates.fidelityCeiling.value,
    length_margin: protocol.gates.length.margin,
    memory_slack_mib: task.gates.memorySlackMib.value,
  };

  const ratios = {} as ResultRecord["ratios"];
  for (const w of WORKLOAD_IDS) {
    const passes = [...f.passes[w]];
    if (passes.length === 0) throw new Error(`workload ${w} has no passes`);
    ratios[w] = { passes, ratio: median(passes) };
  }
  const speedup = geometricMean(WORKLOAD_IDS.map((w) => ratios[w].ratio));

  const memoryOk = f.memory.peak_mib <= f.memory.allowed_mib;
  const confidence = `${Math.round(protocol.gates.confidence * 100)}%`;
  const rows: Record<GateKey, Omit<GateRow, "key" | "check" | "reason">> = {
    memory: { measured: gib(f.memory.peak_mib), limit: `≤ ${gib(f.memory.allowed_mib)}`, pass: memoryOk },
    offload: {
      measured: f.offload.length === 0 ? "none reported" : [...new Set(f.offload.map((x) => x.what))].join("; "),
      limit: "no weights or KV blocks in host memory",
      pass: f.offload.length === 0,
    },
    fidelity: {
      measured: f.fidelity === null ? "not measured" : shortNumber(f.fidelity),
      limit: `≤ ${shortNumber(limits.fidelity_ceiling)}`,
      pass: fidelityPasses(f.fidelity, limits.fidelity_ceiling),
    },
    likelihood: gapRow(f.likelihood, limits.likelihood_bound, z, confidence),
    argmax: gapRow(f.argmax, limits.argmax_bound, z, confidence),
    greedy: {
      measured: f.greedyAgreement === null ? "not measured" : f.greedyAgreement.toFixed(3),
      limit: limits.greedy_agreement_floor === null ? "none" : `≥ ${shortNumber(limits.greedy_agreement_floor)}`,
      pass: greedyPasses(f.greedyAgreement, limits.greedy_agreement_floor),
    },
    length: {
      measured:
        f.lengths.pooled.ratio === null
          ? `${f.lengths.pooled.replies} paired replies: too few`
          : ratioWithInterval(f.lengths.pooled.ratio, f.lengths.pooled.low!, f.lengths.pooled.high!),
      limit: `1 ± ${shortNumber(limits.length_margin)} at ${confidence}`,
      pass: lengthPasses(f.lengths.pooled, limits.length_margin),
    },
    answers: {
      measured: `${percent(Math.max(...CHECKS.map((c) => share(f.answers[c].candidate))))} unanswered at most`,
      limit: `≤ ${percent(protocol.gates.unansweredShare)} of each check's requests unanswered`,
      pass: CHECKS.every((c) => !tooManyUnanswered(f.answers[c].candidate)),
    },
  };

  const gates: GateRow[] = TABLE_ORDER.map((key) => ({
    key,
    check: GATE_CHECKS[key],
    ...rows[key],
    reason: rows[key].pass ? null : GATE_REASONS[key],
  }));
  const failed = REASON_ORDER.find((key) => !rows[key].pass);
  const isVoid = CHECKS.some((c) => tooManyUnanswered(f.answers[c].stock));
  const voidReason = isVoid ? VOID_REASON : null;
  const specscore = isVoid ? null : failed === undefined ? speedup : 0;
  // invariant: a SpecScore of 0 always says why, also when every gate passed and a workload's speedup is 0
  const zeroReason =
    specscore === 0 && failed === undefined
      ? zeroSpeedReason(
          WORKLOAD_IDS.filter((w) => ratios[w].ratio === 0),
          WORKLOAD_IDS.filter((w) => ratios[w].ratio === 0 && (f.brokenPasses?.[w] ?? 0) > 0),
        )
      : null;

  const latency = {} as ResultRecord["latency"];
  const cacheHits = {} as ResultRecord["cache_hits"];
  for (const w of WORKLOAD_IDS) {
    latency[w] = { candidate: f.latency?.[w]?.candidate ?? null, stock: f.latency?.[w]?.stock ?? null };
    cacheHits[w] = { candidate: f.cacheHits?.[w]?.candidate ?? null, stock: f.cacheHits?.[w]?.stock ?? null };
  }

  return resultRecordSchema.parse({
    ratios,
    specscore,
    greedy_agreement: f.greedyAgreement,
    likelihood: f.likelihood,
    argmax: f.argmax,
    fidelity: f.fidelity,
    lengths: f.lengths,
    memory: { ...f.memory, ok: memoryOk },
    acceptance: f.acceptance,
    limits,
    reason: voidReason ?? (failed === undefined ? zeroReason : GATE_REASONS[failed]),
    score: specscore,
    speedup,
    gates,
    void: voidReason,
    offload: { ok: f.offload.length === 0, findings: [...f.offload] },
    answers: f.answers,
    latency,
    cache_hits: cacheHits,
    reproducibility: { protocol_version: protocol.version, task: f.task, ...f.reproducibility },
    ...(f.samplingAudit === undefined ? {} : { sampling_audit: f.samplingAudit }),
    ...(f.acceptanceReport ? { acceptance_report: f.acceptanceReport } : {}),
  } satisfies ResultRecord);
}

function gapRow(g: GapRecord | null, bound: number, z: number, confidence: string) {
  return {
    measured: g === null ? "not measured" : gapWithHalfWidth(g.gap, g.se, z),
    limit: `within ±${shortNumber(bound)} at ${confidence}`,
    pass: g !== null && gapPasses(g.gap, g.se, bound, z),
  };
}
