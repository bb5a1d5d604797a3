import { z } from "zod";
import { TASK_IDS } from "./types";

const finite = z.number().finite();
const share = finite.min(0).max(1);
const workloads = <T extends z.ZodType>(entry: T) => z.object({ solo: entry, team: entry, busy: entry });

/** A sample's size and range: what the report says of every figure it gathers over evaluations. */
export const spreadSchema = z.object({ n: z.number().int().nonnegative(), mean: finite, min: finite, max: finite });

/** One evaluation the calibration ran: an A/A run (the stock engine as candidate) or a simulated reference. */
export const calibrationRunSchema = z.object({
  /** `stock` for an A/A run, else the reference's key (protocol section 11). */
  key: z.string(),
  label: z.string(),
  /** The simulated engine that played it (lib/sim-engine/engines/<mode>). */
  mode: z.string(),
  seed: z.string(),
  outcome: z.enum(["scored", "failed", "void", "error"]),
  reason: z.string().nullable(),
  specscore: finite.nonnegative().nullable(),
  /** The geometric mean of the ratios whatever the gates say. */
  speedup: finite.nonnegative().nullable(),
  ratios: workloads(finite.nonnegative()).nullable(),
  failed_gates: z.array(z.string()),
  wall_seconds: finite.nonnegative(),
});

/**
 * One gate statistic over the calibration's runs, reduced to a distance its limit bounds: the fidelity itself, the
 * greedy agreement, the end of the 95% interval nearest equality for the likelihood and first-choice gaps and the
 * length ratio (0 when the interval holds equality), the memory peak over its allowance.
 */
export const gateCalibrationSchema = z.object({
  key: z.enum(["fidelity", "likelihood", "argmax", "greedy", "length", "memory"]),
  statistic: z.string(),
  /** `max`: passes at or under the limit; `min`: at or over it; null limit: the task sets none. */
  direction: z.enum(["max", "min"]),
  limit: finite.nullable(),
  aa: z.object({
    values: z.array(finite),
    spread: spreadSchema.nullable(),
    passed: z.number().int(),
    runs: z.number().int(),
  }),
  references: z.array(z.object({ key: z.string(), value: finite.nullable(), pass: z.boolean().nullable() })),
  /** How far the worst A/A or reference value sits from the limit, in the limit's direction (positive: inside). */
  margin: finite.nullable(),
});

export const cacheCalibrationSchema = z.object({
  source: z.string(),
  targets: z.object({ token_weighted: share, per_request: share, source: z.string() }),
  /** The stock engine's hit over every A/A run (both sides of an A/A run are the stock engine: its stock side). */
  stock: workloads(z.object({ token_weighted: spreadSchema.nullable(), per_request: spreadSchema.nullable() })),
  /** Token-weighted and per-request hit averaged over the workloads and runs, against the targets. */
  overall: z.object({ token_weighted: finite.nullable(), per_request: finite.nullable() }),
  returning_session_share: z.object({ recorded: z.boolean(), value: finite.nullable(), note: z.string() }),
});

const auditSideSchema = z.object({
  p_value: share,
  consistent: z.boolean(),
  replies: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
});

/** The exact sampling audit over the calibration's runs (beyond the seeds; shown, not gated under protocol v1). */
export const samplingAuditCalibrationSchema = z.object({
  alpha: share.nullable(),
  aa: z.object({
    audits: z.number().int().nonnegative(),
    false_alarms: z.number().int().nonnegative(),
    p_values: z.array(share),
  }),
  references: z.array(
    z.object({ key: z.string(), candidate: auditSideSchema.nullable(), stock: auditSideSchema.nullable() }),
  ),
  likelihood_replies: z.object({
    asked: z.number().int().nonnegative(),
    min: z.number().int().nonnegative().nullable(),
    max: z.number().int().nonnegative().nullable(),
  }),
});

/** One point of the search over `c` and `m`: one workload's first pass on a fresh stock engine. */
export const thinkSearchPointSchema = z.object({
  workload: z.enum(["solo", "team", "busy"]),
  scale: finite.positive(),
  interleave: z.number().int().positive(),
  token_weighted: share.nullable(),
  per_request: share.nullable(),
  requests: z.number().int().nonnegative(),
  /** Requests of sessions that came back after a think time past the cap, within the pass. */
  returning: z.number().int().nonnegative(),
  returning_history_cached: share.nullable(),
  /** How long every lane had a request in flight: the time team's and busy's speed is read over. */
  all_busy_seconds: finite.nonnegative().nullable().optional(),
  pass_seconds: finite.positive().optional(),
});

/** Section 4's search over the think-time scale `c` and the interleave `m` (`npm run calibrate:think`). */
export const thinkSearchCalibrationSchema = z.object({
  source: z.string(),
  profile: z.string(),
  seed: z.string(),
  sim_speed: finite.positive(),
  cores: z.number().int().positive().nullable(),
  cap_seconds: finite,
  targets: z.object({ token_weighted: share, per_request: share }),
  points: z.array(thinkSearchPointSchema),
  /** The (c, m) whose mean hit over the workloads searched misses the targets least, and by how much at worst. */
  nearest: z.object({ scale: finite, interleave: z.number().int(), miss: finite }).nullable(),
});

/** The checks whose power is measured (lib/gates/stats/gate-power.ts POWER_CHECKS); `gates`: any gated check fails. */
export const POWER_CHECK_KEYS = ["likelihood", "argmax", "audit", "fidelity", "greedy", "gates"] as const;
const powerRates = z.partialRecord(z.enum(POWER_CHECK_KEYS), share);
const powerFamily = z.enum(["temperature", "top-k", "quantization"]);
const powerPool = {
  pool_replies: z.number().int().nonnegative(),
  pool_texts: z.number().int().nonnegative(),
  pool_probes: z.number().int().nonnegative(),
  /** How the replies were drawn: n-subsets of the pool, or with replacement where the pool is smaller than n. */
  resampling: z.enum(["subsample", "bootstrap"]),
};

/** One attack's strength: each check's detection rate at the profile's sizes (a check that does not apply is absent). */
export const gatePowerPointSchema = z.object({
  family: powerFamily,
  strength: finite,
  rates: powerRates,
  ...powerPool,
});

/** A check against one side of a family's sweep: the weakest strength from which on it catches `target` of draws. */
export const gatePowerThresholdSchema = z.object({
  check: z.enum(POWER_CHECK_KEYS),
  family: powerFamily,
  /** Below or above the honest value (temperature scale 1, the request's top_k, no perturbation). */
  side: z.enum(["below", "above"]),
  honest: finite,
  /** The strengths of that side, weakest (nearest the honest value) first. */
  strengths: z.array(finite),
  smallest: finite.nullable(),
  /** The side's weakest strength is caught already: the check's threshold lies at or below it. */
  at_weakest: z.boolean(),
});

/** The gates' power against the simulated engine's parametric attacks (lib/gates/bench/gate-power.ts). */
export const gatePowerCalibrationSchema = z.object({
  source: z.string(),
  profile: z.string(),
  target: share,
  /** The profile's sizes every draw has. */
  sizes: z.object({
    replies: z.number().int().nonnegative(),
    texts: z.number().int().nonnegative(),
    probes: z.number().int().nonnegative(),
  }),
  resamples: z.number().int().positive(),
  seed: z.string(),
  sim_speed: finite.positive(),
  max_tokens: z.number().int().positive(),
  stock_pool: z.object({ replies: z.number().int().nonnegative(), tokens: z.number().int().nonnegative() }),
  /** The stock engine as candidate: each check's false-alarm rate. */
  honest: z.object({ rates: powerRates, ...powerPool }).nullable(),
  /**
   * The false alarms over independent honest pools (one a seed, the run's own among them): draws of one pool share
   * its replies, so one pool's rate reads that pool as much as the check; their mean over pools is the check's rate.
   * Absent where one pool was measured.
   */
  false_alarms: z
    .object({
      seeds: z.array(z.number().int()),
      /** Per check, the mean of the pools' rates and its standard error over pools. */
      rates: z.partialRecord(z.enum(POWER_CHECK_KEYS), z.object({ mean: share, se: finite.nonnegative() })),
      /** The audit's p-value on each whole pool (2,048 replies), in the seeds' order: uniform under exact sampling. */
      audit_p: z.array(share.nullable()),
      audit_alpha: share,
    })
    .optional(),
  points: z.array(gatePowerPointSchema),
  thresholds: z.array(gatePowerThresholdSchema),
});

/**
 * A calibration report (protocol section 10): A/A evaluations and the simulated references run through the real
 * pod pipeline under one profile, reduced to the speed noise, each gate statistic against its limit, and the stock
 * engine's cache figures against the data card's targets. Stored per protocol version and task as the evidence the
 * protocol's calibrated values are published with.
 */
export const calibrationReportSchema = z.object({
  kind: z.literal("speculatorarena.calibration"),
  protocol_version: z.string(),
  task: z.enum(TASK_IDS),
  profile: z.string(),
  /** Only a report run under the full profile is the protocol's evidence; any other is labelled as such. */
  full_protocol: z.boolean(),
  label: z.string(),
  created_at: z.string().datetime(),
  /** The engines that played it: the simulated engine, or the pinned vLLM on a GPU. */
  runtime: z.enum(["sim", "vllm"]),
  sim_speed: finite.positive(),
  /** Pods run at once: more than one shares the machine's cores, which perturbs the simulated engines' pace. */
  concurrency: z.number().int().positive(),
  device: z.string().nullable(),
  wall_seconds: finite.nonnegative(),
  think_time: z.object({ cap_seconds: finite, scale: finite, interleave: workloads(z.number().int()) }),
  aa: z.object({
    requested: z.number().int().nonnegative(),
    runs: z.array(calibrationRunSchema),
    /** |SpecScore − 1| over the A/A runs that scored (a gate's false alarm scores 0: an error of 1). */
    specscore_error: z.object({ mean: finite, max: finite, n: z.number().int() }).nullable(),
    /** |speedup − 1|: the speed noise alone, whatever the gates said. */
    speedup_error: z.object({ mean: finite, max: finite, n: z.number().int() }).nullable(),
    /** Each workload's ratio over the A/A runs (its median over passes), and over every pass of them. */
    ratio_spread: workloads(z.object({ ratio: spreadSchema.nullable(), passes: spreadSchema.nullable() })),
  }),
  references: z.array(calibrationRunSchema),
  gates: z.array(gateCalibrationSchema),
  cache: cacheCalibrationSchema,
  /** Absent on reports made before the audit was reduced into them. */
  sampling_audit: samplingAuditCalibrationSchema.optional(),
  /** Absent on reports made before the search was run. */
  think_search: thinkSearchCalibrationSchema.optional(),
  /** Absent on reports made before the gates' power was measured. */
  gate_power: gatePowerCalibrationSchema.optional(),
  /** What section 10 asks that this report does not hold, in words. */
  not_measured: z.array(z.string()),
});

export type CalibrationReport = z.infer<typeof calibrationReportSchema>;
export type CalibrationRun = z.infer<typeof calibrationRunSchema>;
export type GateCalibration = z.infer<typeof gateCalibrationSchema>;
export type CacheCalibration = z.infer<typeof cacheCalibrationSchema>;
export type Spread = z.infer<typeof spreadSchema>;
export type ThinkSearchCalibration = z.infer<typeof thinkSearchCalibrationSchema>;
export type GatePowerCalibration = z.infer<typeof gatePowerCalibrationSchema>;
