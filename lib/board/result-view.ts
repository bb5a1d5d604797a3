import { z } from "zod";
import { GATE_CHECKS, TABLE_ORDER } from "@/lib/gates/record/reasons";
import { WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";

/**
 * The one place that maps the judge's stored record (lib/gates/record/schema.ts, whose first fields are the
 * seed evaluation page's JSON) to what the web shows. Parsed leniently: a record from an older judge, or a
 * partial one from a failed run, still shows every field it has.
 */
const num = z.number().finite();
const maybe = <T extends z.ZodType>(s: T) => s.nullable().optional().catch(null);
const percentiles = z.object({ p50: num, p90: num, p99: num });
const latency = z.object({ ttft_ms: maybe(percentiles), tpot_ms: maybe(percentiles) });
const cacheHit = z.object({ token_weighted: num, per_request: num.optional() });
const perEngine = <T extends z.ZodType>(s: T) => z.object({ candidate: maybe(s), stock: maybe(s) });
const perWorkload = <T extends z.ZodType>(s: T) =>
  z.object({ solo: maybe(s), team: maybe(s), busy: maybe(s) }).partial();

const looseRecord = z.object({
  ratios: maybe(perWorkload(z.object({ passes: z.array(num).catch([]), ratio: num }))),
  specscore: maybe(num),
  score: maybe(num),
  speedup: maybe(num),
  reason: maybe(z.string()),
  void: maybe(z.string()),
  acceptance: maybe(perWorkload(num)),
  gates: maybe(
    z.array(
      z.object({
        key: z.string().optional(),
        check: z.string(),
        measured: z.string(),
        limit: z.string(),
        pass: z.boolean(),
        reason: z.string().nullable().optional(),
      }),
    ),
  ),
  latency: maybe(perWorkload(perEngine(latency))),
  cache_hits: maybe(perWorkload(perEngine(cacheHit))),
  cache_hit: maybe(perWorkload(perEngine(cacheHit))),
  acceptance_report: maybe(perWorkload(z.object({ credible: z.boolean(), why: z.string().nullable().catch(null) }))),
  sampling_audit: maybe(
    z.object({
      candidate: maybe(
        z.object({ tokens: num, p_value: num, mean_u: num, outside_share: num, consistent: z.boolean() }),
      ),
      stock: maybe(z.object({ tokens: num, p_value: num, mean_u: num, outside_share: num, consistent: z.boolean() })),
    }),
  ),
});

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
}

export interface EngineLatency {
  ttft: Percentiles | null;
  tpot: Percentiles | null;
}

export interface WorkloadView {
  workload: WorkloadId;
  /** The candidate's speed over the stock engine's: the median of its passes. */
  ratio: number | null;
  passes: number[];
  /** The engine's own report of tokens per verify step (1 for the stock engine). */
  acceptance: number | null;
  /** false when that report is impossible (more accepted than drafted, above k + 1 per step); null when unchecked. */
  acceptanceCredible: boolean | null;
  /** Why it is not credible. */
  acceptanceWhy: string | null;
  latency: { candidate: EngineLatency | null; stock: EngineLatency | null };
  /** Token-weighted prefix-cache hit share. */
  cacheHit: { candidate: number | null; stock: number | null };
}

export interface GateView {
  key: string | null;
  check: string;
  measured: string;
  limit: string;
  pass: boolean;
  reason: string | null;
}

export interface ResultView {
  /** What the board ranks: SpecScore (0 when a gate failed), or null when there is none. */
  score: number | null;
  /** The geometric mean of the ratios whatever the gates say. */
  speedup: number | null;
  /** The first failing gate's reason; null when every gate passed. */
  reason: string | null;
  voidReason: string | null;
  workloads: Record<WorkloadId, WorkloadView>;
  gates: GateView[];
  /** Every gate in the record passed (false when the record has no gate table and a reason). */
  lossless: boolean | null;
  /** The exact sampling audit of each engine's timed replies: shown, never gated; null on records without it. */
  samplingAudit: { candidate: AuditView | null; stock: AuditView | null } | null;
}

export interface AuditView {
  tokens: number;
  p_value: number;
  mean_u: number;
  outside_share: number;
  consistent: boolean;
}

const emptyWorkload = (workload: WorkloadId): WorkloadView => ({
  workload,
  ratio: null,
  passes: [],
  acceptance: null,
  acceptanceCredible: null,
  acceptanceWhy: null,
  latency: { candidate: null, stock: null },
  cacheHit: { candidate: null, stock: null },
});

function engineLatency(value: z.infer<typeof latency> | null | undefined): EngineLatency | null {
  if (!value) return null;
  const out = { ttft: value.ttft_ms ?? null, tpot: value.tpot_ms ?? null };
  return out.ttft || out.tpot ? out : null;
}

function gateOrder(key: string | null): number {
  const i = TABLE_ORDER.indexOf(key as (typeof TABLE_ORDER)[number]);
  return i === -1 ? TABLE_ORDER.length : i;
}

/** Reads a stored result (any shape, possibly null) into the web's view of it. */
export function resultView(raw: unknown): ResultView | null {
  if (raw === null || raw === undefined || typeof raw !== "object") return null;
  const parsed = looseRecord.safeParse(raw);
  if (!parsed.success) return null;
  const r = parsed.data;
  const workloads = {} as Record<WorkloadId, WorkloadView>;
  for (const w of WORKLOAD_IDS) {
    const view = emptyWorkload(w);
    const ratio = r.ratios?.[w];
    if (ratio) {
      view.ratio = ratio.ratio;
      view.passes = ratio.passes;
    }
    view.acceptance = r.acceptance?.[w] ?? null;
    const report = r.acceptance_report?.[w];
    if (report && view.acceptance !== null) {
      view.acceptanceCredible = report.credible;
      view.acceptanceWhy = report.credible ? null : (report.why ?? null);
    }
    const lat = r.latency?.[w];
    if (lat) view.latency = { candidate: engineLatency(lat.candidate), stock: engineLatency(lat.stock) };
    const hit = (r.cache_hits ?? r.cache_hit)?.[w];
    if (hit) {
      view.cacheHit = { candidate: hit.candidate?.token_weighted ?? null, stock: hit.stock?.token_weighted ?? null };
    }
    workloads[w] = view;
  }
  const gates: GateView[] = (r.gates ?? [])
    .map((g) => ({
      key: g.key ?? null,
      check: g.check,
      measured: g.measured,
      limit: g.limit,
      pass: g.pass,
      reason: g.reason ?? null,
    }))
    .sort((a, b) => gateOrder(a.key) - gateOrder(b.key));
  const ratios = WORKLOAD_IDS.map((w) => workloads[w].ratio);
  const speedup =
    r.speedup ??
    (ratios.every((x): x is number => x !== null && x > 0)
      ? Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length)
      : null);
  const reason = r.reason ?? null;
  const lossless = gates.length > 0 ? gates.every((g) => g.pass) : reason ? false : r.score != null ? true : null;
  return {
    score: r.score ?? r.specscore ?? null,
    speedup,
    reason,
    voidReason: r.void ?? null,
    workloads,
    gates,
    lossless,
    samplingAudit: r.sampling_audit
      ? { candidate: r.sampling_audit.candidate ?? null, stock: r.sampling_audit.stock ?? null }
      : null,
  };
}

/** The check's name in the gate table, for a key the record names. */
export function gateCheckName(key: string): string {
  return (GATE_CHECKS as Record<string, string>)[key] ?? key;
}
