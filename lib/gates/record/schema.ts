import { z } from "zod";

const finite = z.number().finite();
const workloads = <T extends z.ZodType>(entry: T) => z.object({ solo: entry, team: entry, busy: entry });
const byEngine = <T extends z.ZodType>(entry: T) => z.object({ candidate: entry, stock: entry });

export const workloadRatioSchema = z.object({ passes: z.array(finite.nonnegative()), ratio: finite.nonnegative() });

export const gapSchema = z.object({ gap: finite, se: finite.nonnegative(), candidate: finite, stock: finite });

export const lengthEntrySchema = z.object({
  ratio: finite.nullable(),
  low: finite.nullable(),
  high: finite.nullable(),
  paired: z.boolean(),
  replies: z.number().int().nonnegative(),
});

export const percentilesSchema = z.object({ p50: finite, p90: finite, p99: finite });

export const latencySchema = z.object({ ttft_ms: percentilesSchema.nullable(), tpot_ms: percentilesSchema.nullable() });

/** Prefix-cache hit from `usage.prompt_tokens_details.cached_tokens`: token-weighted and per request. */
export const cacheHitSchema = z.object({ token_weighted: finite.min(0).max(1), per_request: finite.min(0).max(1) });

export const GATE_KEYS = [
  "memory",
  "offload",
  "fidelity",
  "likelihood",
  "argmax",
  "greedy",
  "length",
  "answers",
] as const;
export type GateKey = (typeof GATE_KEYS)[number];

/** One row of the evaluation page's gate table. */
export const gateRowSchema = z.object({
  key: z.enum(GATE_KEYS),
  check: z.string(),
  measured: z.string(),
  limit: z.string(),
  pass: z.boolean(),
  reason: z.string().nullable(),
});

export const limitsSchema = z.object({
  greedy_agreement_floor: finite.nullable(),
  likelihood_bound: finite,
  argmax_bound: finite,
  fidelity_ceiling: finite,
  length_margin: finite,
  memory_slack_mib: finite,
});

const answerCountSchema = z.object({
  requests: z.number().int().nonnegative(),
  unanswered: z.number().int().nonnegative(),
});

export const reproducibilitySchema = z.object({
  protocol_version: z.string(),
  task: z.string(),
  profile: z.string(),
  seeds: z.record(z.string(), z.union([z.number(), z.string()])),
  engine_archive_sha256: z.string().nullable(),
  speculator_commit: z.string().nullable(),
  /** The sealed speculator's digest (its files' paths and sha256s); the worker fills it and the two above. */
  speculator_sha256: z.string().nullable().default(null),
  image: z.string(),
  device: z.string(),
  /** The engine sandbox it was measured in, what it lacked included (lib/pods/sandbox/properties.ts); the backend's. */
  sandbox: z
    .object({
      backend: z.string(),
      complete: z.boolean(),
      missing: z.array(z.object({ property: z.string(), why: z.string() })),
    })
    .optional(),
});

/** One engine's timed replies under the sampling audit (lib/gates/stats/sampling-audit.ts). */
export const samplingAuditSchema = z.object({
  replies: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
  informative: z.number().int().nonnegative(),
  ad: finite,
  p_value: finite.min(0).max(1),
  ks_d: finite.min(0).max(1),
  ks_p_value: finite.min(0).max(1),
  mean_u: finite.min(0).max(1),
  outside_share: finite.min(0).max(1),
  alpha: finite.min(0).max(1),
  outside_tolerance: finite.min(0).max(1),
  consistent: z.boolean(),
});

/**
 * The exact sampling audit of each engine's timed replies (beyond the seeds): shown, never gated under protocol v1.
 * Each scored token's randomized PIT over the stock engine's top-k distribution after the request's sampling is
 * uniform exactly when the engine samples the target's distribution; an Anderson–Darling test over them, and the
 * share of tokens outside that distribution's support.
 */
export const samplingAuditRecordSchema = z.object({
  gated: z.literal(false),
  sampling: z.object({ temperature: finite, top_k: z.number().int(), top_p: finite }),
  candidate: samplingAuditSchema.nullable(),
  stock: samplingAuditSchema.nullable(),
});

/**
 * Everything the judge recorded about one evaluation: the fields of the seed evaluation page's result JSON
 * (`ratios` … `score`), then the gate table, timings, cache hits and the facts that reproduce it.
 */
export const resultRecordSchema = z.object({
  ratios: workloads(workloadRatioSchema),
  /** SpecScore: the geometric mean of the ratios when every gate passes, 0 when one fails, null when void. */
  specscore: finite.nonnegative().nullable(),
  greedy_agreement: finite.nullable(),
  likelihood: gapSchema.nullable(),
  argmax: gapSchema.nullable(),
  fidelity: finite.nullable(),
  lengths: z.object({
    solo: lengthEntrySchema,
    team: lengthEntrySchema,
    busy: lengthEntrySchema,
    pooled: lengthEntrySchema,
  }),
  memory: z.object({
    ok: z.boolean(),
    /** The candidate's peak while its timed passes ran (protocol section 7): the one the gate judges. */
    peak_mib: finite,
    /** GPU_MEMORY_UTILIZATION × the device + the task's slack. */
    allowed_mib: finite,
    /** The stock engine's peak over the same passes, under the same budget: shown, never gated; null if unread. */
    stock_peak_mib: finite.nullable().optional(),
    /** The candidate's peak from its start to its first timed pass (loading, the first warm-up): shown, not gated. */
    startup_peak_mib: finite.nullable().optional(),
    /** The device's memory and GPU_MEMORY_UTILIZATION, the two factors of the limit (records since both were kept). */
    device_mib: finite.positive().optional(),
    gpu_memory_utilization: finite.positive().max(1).optional(),
  }),
  acceptance: workloads(finite.nullable()),
  limits: limitsSchema,
  /** The first failing gate's reason in words, or why SpecScore is 0 though every gate passed; null when it scored. */
  reason: z.string().nullable(),
  /** What the board ranks: SpecScore, or null when the evaluation is void. */
  score: finite.nonnegative().nullable(),

  /** The geometric mean of the ratios whatever the gates say (the speed the board shows beside a failed gate). */
  speedup: finite.nonnegative(),
  gates: z.array(gateRowSchema),
  /** Why the evaluation is void and refunded (the stock engine could not answer a check), else null. */
  void: z.string().nullable(),
  offload: z.object({
    ok: z.boolean(),
    findings: z.array(z.object({ kind: z.enum(["weights", "kv"]), what: z.string(), line: z.string() })),
  }),
  answers: z.object({
    greedy: byEngine(answerCountSchema),
    likelihood: byEngine(answerCountSchema),
    fidelity: byEngine(answerCountSchema),
  }),
  latency: workloads(byEngine(latencySchema.nullable())),
  cache_hits: workloads(byEngine(cacheHitSchema.nullable())),
  reproducibility: reproducibilitySchema,
  /** Shown, not gated: absent on records from before it, null when no reply could be audited. */
  sampling_audit: samplingAuditRecordSchema.nullable().optional(),
  /** Per workload, whether the engine's own acceptance report is possible (absent on older records). */
  acceptance_report: workloads(z.object({ credible: z.boolean(), why: z.string().nullable() }).nullable()).optional(),
});

export type ResultRecord = z.infer<typeof resultRecordSchema>;
export type GateRow = z.infer<typeof gateRowSchema>;
export type GapRecord = z.infer<typeof gapSchema>;
export type LengthEntry = z.infer<typeof lengthEntrySchema>;
export type Percentiles = z.infer<typeof percentilesSchema>;
export type LatencySummary = z.infer<typeof latencySchema>;
export type CacheHit = z.infer<typeof cacheHitSchema>;
export type Reproducibility = z.infer<typeof reproducibilitySchema>;
export type SamplingAuditRecord = z.infer<typeof samplingAuditRecordSchema>;
export type SamplingAudit = z.infer<typeof samplingAuditSchema>;
export type AcceptanceReport = NonNullable<ResultRecord["acceptance_report"]>;
export type RecordLimits = z.infer<typeof limitsSchema>;
