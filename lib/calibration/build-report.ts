import type { RecordLimits } from "../gates";
import { workloadCard } from "../judge/card/workload-card";
import { FULL_PROFILE, getProfile, type Protocol, type TaskId } from "../protocol";
import { type CalibrationReport, calibrationReportSchema } from "../protocol/calibration-schema";
import { type CacheTargets, cacheStatistics } from "./cache-statistics";
import { gateStatistics } from "./gate-statistics";
import { type CalibrationPod, runSummary } from "./pod-outcome";
import { samplingAuditSummary } from "./sampling-audit-summary";
import { aaSpeedNoise } from "./speed-noise";

export interface CalibrationInput {
  protocol: Protocol;
  task: TaskId;
  profile: string;
  /** A/A evaluations asked for; `aa` holds those that came back, whatever their outcome. */
  requestedAa: number;
  aa: readonly CalibrationPod[];
  references: readonly CalibrationPod[];
  cacheTargets: CacheTargets;
  simSpeed: number;
  concurrency: number;
  createdAt: Date;
  wallSeconds: number;
  /** The engines that played it (`sim` when absent: the calibration command's pods). */
  runtime?: "sim" | "vllm";
}

/** What a report says it is: only the full profile's run is the evidence section 10 asks for. */
export function reportLabel(profile: string, version: string): string {
  return profile === FULL_PROFILE
    ? `the full protocol's calibration: evidence for version ${version}'s calibrated values`
    : `a run under the ${profile} test profile (shortened passes and checks): not the full protocol's evidence`;
}

/** The limits the task's records are judged on, as the records carry them. */
export function taskLimits(protocol: Protocol, task: TaskId): RecordLimits {
  const g = protocol.tasks[task].gates;
  return {
    greedy_agreement_floor: g.greedyAgreementFloor.value,
    likelihood_bound: g.likelihoodBound.value,
    argmax_bound: g.argmaxBound.value,
    fidelity_ceiling: g.fidelityCeiling.value,
    length_margin: protocol.gates.length.margin,
    memory_slack_mib: g.memorySlackMib.value,
  };
}

/** The lines of `not_measured` a think-time search in the report answers (think-search-cli.ts --into drops them). */
export const ANSWERED_BY_SEARCH = ["no search over m and c", "the returning-session cached share"] as const;

/** The line of `not_measured` the gates' power answers (lib/gates/bench/gate-power.ts --into drops it). */
export const ANSWERED_BY_POWER = "the gates' power against the simulated attacks";

function notMeasured(input: CalibrationInput): string[] {
  const lines = [
    `no search over m and c: the stock engine's cache hit is measured under the values in force (c = ${input.protocol.thinkTime.scale.value}, the cap ${input.protocol.thinkTime.capSeconds} s, each workload's m)`,
    "the returning-session cached share: the result record does not keep it",
    `${ANSWERED_BY_POWER} (the red-team matrix and lib/gates/bench/sampling-audit.ts measure it under shorter profiles)`,
  ];
  if ((input.runtime ?? "sim") === "sim")
    lines.push("the vLLM runtime: the references here are the simulated engines that play them");
  if (input.profile !== FULL_PROFILE) lines.unshift(`the full profile: this run is under ${input.profile}`);
  return lines;
}

/** Reduces the calibration's pods to its report, validated by the schema the protocol loads it with. */
export function buildCalibrationReport(input: CalibrationInput): CalibrationReport {
  const { protocol, task } = input;
  const aaRecords = input.aa.flatMap((p) => (p.record ? [p.record] : []));
  const device = [...input.aa, ...input.references].find((p) => p.record)?.record?.reproducibility.device ?? null;
  const report: CalibrationReport = {
    kind: "speculatorarena.calibration",
    protocol_version: protocol.version,
    task,
    profile: input.profile,
    full_protocol: input.profile === FULL_PROFILE,
    label: reportLabel(input.profile, protocol.version),
    created_at: input.createdAt.toISOString(),
    runtime: input.runtime ?? "sim",
    sim_speed: input.simSpeed,
    concurrency: input.concurrency,
    device,
    wall_seconds: Math.round(input.wallSeconds),
    think_time: {
      cap_seconds: protocol.thinkTime.capSeconds,
      scale: protocol.thinkTime.scale.value,
      interleave: {
        solo: protocol.workloads.solo.interleave,
        team: protocol.workloads.team.interleave,
        busy: protocol.workloads.busy.interleave,
      },
    },
    aa: { requested: input.requestedAa, runs: input.aa.map(runSummary), ...aaSpeedNoise(input.aa) },
    references: input.references.map(runSummary),
    gates: gateStatistics(input.aa, input.references, taskLimits(protocol, task), protocol.gates.z),
    cache: cacheStatistics(aaRecords, input.cacheTargets),
    sampling_audit: samplingAuditSummary(
      input.aa,
      input.references,
      getProfile(input.profile, protocol)?.likelihoodReplies ?? 0,
    ),
    not_measured: notMeasured(input),
  };
  return calibrationReportSchema.parse(report);
}

export interface FinishedPod {
  group: "aa" | "reference";
  pod: CalibrationPod;
}

/** The report of pods that came back, in the order they were asked for, against the data card's cache targets. */
export function calibrationReportFrom(input: {
  protocol: Protocol;
  task: TaskId;
  profile: string;
  requestedAa: number;
  pods: readonly FinishedPod[];
  simSpeed: number;
  concurrency: number;
  createdAt: Date;
  wallSeconds: number;
  runtime?: "sim" | "vllm";
}): CalibrationReport {
  const targets = workloadCard().targets;
  return buildCalibrationReport({
    protocol: input.protocol,
    task: input.task,
    profile: input.profile,
    requestedAa: input.requestedAa,
    aa: input.pods.filter((d) => d.group === "aa").map((d) => d.pod),
    references: input.pods.filter((d) => d.group === "reference").map((d) => d.pod),
    cacheTargets: {
      tokenWeighted: targets.chatPrefixReuseTokenWeighted,
      perRequest: targets.chatPrefixReusePerRequest,
      source:
        "the data card's prefix-reuse targets (lib/judge/card/workload-card.v1.json): Mooncake's chat traffic under an unbounded prefix cache",
    },
    simSpeed: input.simSpeed,
    concurrency: input.concurrency,
    createdAt: input.createdAt,
    wallSeconds: input.wallSeconds,
    runtime: input.runtime,
  });
}
