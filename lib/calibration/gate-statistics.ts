import type { RecordLimits, ResultRecord } from "../gates";
import type { GateCalibration } from "../protocol/calibration-schema";
import type { CalibrationPod } from "./pod-outcome";
import { spread } from "./spread";

type GateKey = GateCalibration["key"];

interface GateReading {
  key: GateKey;
  statistic: string;
  direction: GateCalibration["direction"];
  limit: (l: RecordLimits) => number | null;
  value: (r: ResultRecord, z: number) => number | null;
}

/** How far a gap's interval (gap ± z·se) stays from 0: 0 when it holds 0. The gate bounds this by ± its bound. */
export function gapDistance(gap: { gap: number; se: number } | null, z: number): number | null {
  return gap === null ? null : Math.max(0, Math.abs(gap.gap) - z * gap.se);
}

/** How far the pooled length ratio's interval stays from 1: 0 when it holds 1. */
export function lengthDistance(pooled: { low: number | null; high: number | null }): number | null {
  if (pooled.low === null || pooled.high === null) return null;
  return Math.max(0, pooled.low - 1, 1 - pooled.high);
}

/** The candidate's peak above its GPU_MEMORY_UTILIZATION share of the device (the slack is the limit on it). */
export function memoryOverShare(memory: ResultRecord["memory"], slackMib: number): number {
  return memory.peak_mib - (memory.allowed_mib - slackMib);
}

export const GATE_READINGS: readonly GateReading[] = [
  {
    key: "fidelity",
    statistic: "mean |Δ log-probability| per token against the stock engine",
    direction: "max",
    limit: (l) => l.fidelity_ceiling,
    value: (r) => r.fidelity,
  },
  {
    key: "likelihood",
    statistic: "sampled likelihood gap (nats per token): the 95% interval's end nearest 0",
    direction: "max",
    limit: (l) => l.likelihood_bound,
    value: (r, z) => gapDistance(r.likelihood, z),
  },
  {
    key: "argmax",
    statistic: "first-choice share gap: the 95% interval's end nearest 0",
    direction: "max",
    limit: (l) => l.argmax_bound,
    value: (r, z) => gapDistance(r.argmax, z),
  },
  {
    key: "greedy",
    statistic: "greedy agreement (share of each reply before the first difference)",
    direction: "min",
    limit: (l) => l.greedy_agreement_floor,
    value: (r) => r.greedy_agreement,
  },
  {
    key: "length",
    statistic: "pooled reply-length ratio: the 95% interval's distance from 1",
    direction: "max",
    limit: (l) => l.length_margin,
    value: (r) => lengthDistance(r.lengths.pooled),
  },
  {
    key: "memory",
    statistic: "peak device memory above GPU_MEMORY_UTILIZATION's share (MiB)",
    direction: "max",
    limit: (l) => l.memory_slack_mib,
    value: (r) => memoryOverShare(r.memory, r.limits.memory_slack_mib),
  },
];

const gatePassed = (r: ResultRecord, key: GateKey) => r.gates.find((g) => g.key === key)?.pass ?? null;

/**
 * Each gate statistic over the A/A runs and each reference against its limit (protocol section 10: every A/A run
 * and every honest reference must fall inside). Pass or fail is the record's own gate verdict; the margin is how far
 * the worst value sits inside the limit (negative: outside), null when the task sets no limit or nothing was read.
 */
export function gateStatistics(
  aa: readonly CalibrationPod[],
  references: readonly CalibrationPod[],
  limits: RecordLimits,
  z: number,
): GateCalibration[] {
  const aaRecords = aa.flatMap((p) => (p.record ? [p.record] : []));
  return GATE_READINGS.map((reading) => {
    const limit = reading.limit(limits);
    const aaValues = aaRecords.flatMap((r) => {
      const v = reading.value(r, z);
      return v === null ? [] : [v];
    });
    const refs = references.map((p) => ({
      key: p.key,
      value: p.record ? reading.value(p.record, z) : null,
      pass: p.record ? gatePassed(p.record, reading.key) : null,
    }));
    const all = [...aaValues, ...refs.flatMap((r) => (r.value === null ? [] : [r.value]))];
    const margin =
      limit === null || all.length === 0
        ? null
        : reading.direction === "max"
          ? limit - Math.max(...all)
          : Math.min(...all) - limit;
    return {
      key: reading.key,
      statistic: reading.statistic,
      direction: reading.direction,
      limit,
      aa: {
        values: aaValues,
        spread: spread(aaValues),
        passed: aaRecords.filter((r) => gatePassed(r, reading.key) === true).length,
        runs: aaRecords.length,
      },
      references: refs,
      margin,
    };
  });
}
