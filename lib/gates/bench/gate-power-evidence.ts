import { ANSWERED_BY_POWER } from "@/lib/calibration/build-report";
import {
  type CalibrationReport,
  calibrationReportSchema,
  type GatePowerCalibration,
  POWER_CHECK_KEYS,
} from "@/lib/protocol/calibration-schema";
import { POWER_CHECKS, sidesOf, smallestCaught } from "../stats/gate-power";
import { AUDIT_ALPHA } from "../stats/sampling-audit";
import { ATTACK_FAMILIES, familySpec } from "./gate-power-families";
import type { GatePowerFile, PowerMeasurement, PowerPoint } from "./gate-power-file";

/** What every file of one run shares: a merge of files that differ in any of these would mix two experiments. */
const SHARED = ["task", "profile", "sim_speed", "max_tokens", "resamples", "target"] as const;

const poolOf = (p: PowerMeasurement) => ({
  pool_replies: p.pool.replies,
  pool_texts: p.pool.texts,
  pool_probes: p.pool.probes,
  resampling: p.resampling.replies,
});

/**
 * The honest engine's false alarms over independent pools: per check, the mean of the pools' rates and its standard
 * error. A pool of seed s samples its replies from seeds s and s + 1 (the stock engine's and the candidate's), so
 * pools whose seeds differ by less than 2 share replies and are refused.
 */
export function falseAlarmsOverPools(pools: readonly { seed: number; honest: PowerMeasurement }[]) {
  const sorted = [...pools].sort((a, b) => a.seed - b.seed);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.seed - sorted[i - 1]!.seed < 2)
      throw new Error(
        `honest pools of seeds ${sorted[i - 1]!.seed} and ${sorted[i]!.seed} share replies (a pool of seed s samples seeds s and s + 1): take seeds 2 apart`,
      );
  }
  const rates: NonNullable<GatePowerCalibration["false_alarms"]>["rates"] = {};
  for (const check of POWER_CHECK_KEYS) {
    const xs = sorted.flatMap((p) => (p.honest.rates[check] === undefined ? [] : [p.honest.rates[check]!]));
    if (xs.length === 0) continue;
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const variance = xs.length > 1 ? xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1) : 0;
    rates[check] = { mean, se: Math.sqrt(variance / xs.length) };
  }
  return {
    seeds: sorted.map((p) => p.seed),
    rates,
    audit_p: sorted.map((p) => p.honest.figures.audit_p),
    audit_alpha: AUDIT_ALPHA,
  };
}

/**
 * One or more runs' files (say, one process a strength, side by side) as the calibration report's evidence: every
 * attack's point, a later file's replacing an earlier one's at the same strength; the honest engine's false alarms;
 * and, per check and side of each family's sweep, the weakest strength from which on it catches the target share.
 * Files of other seeds than the first's are further honest pools (`--families honest --seed S`): their false alarms
 * are read with the run's own over every pool.
 */
export function gatePowerEvidence(files: readonly GatePowerFile[]): GatePowerCalibration {
  const first = files[0];
  if (!first) throw new Error("no gate-power file to read");
  for (const f of files) {
    for (const key of SHARED) {
      if (f[key] !== first[key])
        throw new Error(`gate-power files of one run only: ${key} is ${first[key]} in one and ${f[key]} in another`);
    }
    if (JSON.stringify(f.sizes) !== JSON.stringify(first.sizes))
      throw new Error("gate-power files of one run only: their profile's sizes differ");
    if (f.seed !== first.seed) {
      if (f.points.length > 0 || !f.honest)
        throw new Error(
          `a file of seed ${f.seed} beside the run's seed ${first.seed} must be an honest pool only (--families honest)`,
        );
      continue;
    }
    if (f.stock.digest !== first.stock.digest)
      throw new Error("gate-power files of one run only: their stock pools differ (another seed, size or engine)");
  }
  const byStrength = new Map<string, PowerPoint>();
  let honest: PowerMeasurement | null = null;
  const pools = new Map<number, PowerMeasurement>();
  for (const f of files) {
    if (f.honest) pools.set(f.seed, f.honest);
    if (f.seed !== first.seed) continue;
    for (const p of f.points) byStrength.set(`${p.family}|${p.strength}`, p);
    if (f.honest) honest = f.honest;
  }
  const falseAlarms =
    pools.size > 1 ? falseAlarmsOverPools([...pools].map(([seed, h]) => ({ seed, honest: h }))) : undefined;
  const points = [...byStrength.values()].sort(
    (a, b) => ATTACK_FAMILIES.indexOf(a.family) - ATTACK_FAMILIES.indexOf(b.family) || a.strength - b.strength,
  );
  const thresholds: GatePowerCalibration["thresholds"] = [];
  for (const family of ATTACK_FAMILIES) {
    const spec = familySpec(family);
    const sides = sidesOf(
      points.filter((p) => p.family === family),
      spec.honest,
    );
    for (const side of ["below", "above"] as const) {
      const sweep = sides[side];
      if (sweep.length === 0) continue;
      for (const check of POWER_CHECKS) {
        if (!sweep.some((p) => p.rates[check] !== undefined)) continue;
        const caught = smallestCaught(
          sweep.map((p) => ({ strength: p.strength, rate: p.rates[check] ?? null })),
          first.target,
        );
        thresholds.push({
          check,
          family,
          side,
          honest: spec.honest,
          strengths: sweep.map((p) => p.strength),
          smallest: caught?.strength ?? null,
          at_weakest: caught?.atWeakest ?? false,
        });
      }
    }
  }
  return {
    source:
      "lib/gates/bench/gate-power.ts: per attack strength, replies sampled as timed requests ask from the simulated engine under that attack and scored with top-20 prompt_logprobs on a stock engine, beside the stock engine's own pool (and, for a perturbed target, the pool's fixed texts and greedy probes on both); each check judged with the judge's statistics and limits on draws of the profile's sizes",
    profile: first.profile,
    target: first.target,
    sizes: first.sizes,
    resamples: first.resamples,
    seed: String(first.seed),
    sim_speed: first.sim_speed,
    max_tokens: first.max_tokens,
    stock_pool: { replies: first.stock.replies, tokens: first.stock.tokens },
    honest: honest ? { rates: honest.rates, ...poolOf(honest) } : null,
    ...(falseAlarms ? { false_alarms: falseAlarms } : {}),
    points: points.map((p) => ({ family: p.family, strength: p.strength, rates: p.rates, ...poolOf(p) })),
    thresholds,
  };
}

/**
 * A calibration report with the evidence as its `gate_power`, validated as the protocol loads it; the report's line
 * saying the power is not measured goes when the power was measured under the report's own profile.
 */
export function withGatePower(report: CalibrationReport, evidence: GatePowerCalibration): CalibrationReport {
  return calibrationReportSchema.parse({
    ...report,
    gate_power: evidence,
    not_measured:
      evidence.profile === report.profile
        ? report.not_measured.filter((line) => !line.startsWith(ANSWERED_BY_POWER))
        : report.not_measured,
  });
}
