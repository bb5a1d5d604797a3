import type { CacheHit, ConversationForCheck, LatencySummary, ReplyLength, WorkloadAcceptance } from "../../gates";
import type { PassResult, RequestRecord, WorkloadResult } from "../../judge";
import { acceptanceCredibility, percentiles, tpotMs, ttftMs } from "../../judge";
import { WORKLOAD_IDS, type WorkloadId } from "../../protocol";

export type TimedResults = Record<WorkloadId, WorkloadResult>;

const counted = (passes: readonly PassResult[]) => passes.flatMap((p) => p.records.filter((r) => r.counted));

function p(values: number[]) {
  const q = percentiles(values);
  return q.p50 === null || q.p90 === null || q.p99 === null ? null : { p50: q.p50, p90: q.p90, p99: q.p99 };
}

/** TTFT and TPOT percentiles over a workload's counted timed replies (all passes). */
export function latencyOf(result: WorkloadResult): LatencySummary {
  const records = counted(result.passes);
  return {
    ttft_ms: p(records.map(ttftMs).filter((x): x is number => x !== null)),
    tpot_ms: p(records.map(tpotMs).filter((x): x is number => x !== null)),
  };
}

/** The prefix-cache hit over a workload's counted replies: token-weighted and per request. */
export function cacheHitOf(result: WorkloadResult): CacheHit | null {
  const records = counted(result.passes).filter((r) => r.usage.promptTokens && r.usage.cachedTokens !== null);
  if (records.length === 0) return null;
  const prompt = records.reduce((n, r) => n + (r.usage.promptTokens ?? 0), 0);
  const cached = records.reduce((n, r) => n + (r.usage.cachedTokens ?? 0), 0);
  const perRequest = records.reduce((n, r) => n + (r.usage.cachedTokens ?? 0) / (r.usage.promptTokens ?? 1), 0);
  return { token_weighted: Math.min(1, cached / prompt), per_request: Math.min(1, perRequest / records.length) };
}

/**
 * Tokens per verify step over the workload's passes, from the engine's own counters (shown, never scored), and
 * whether that report is possible: every pass's counters and their totals (`acceptanceCredibility`).
 */
export function acceptanceOf(result: WorkloadResult): WorkloadAcceptance | null {
  let drafts = 0;
  let accepted = 0;
  let draftTokens: number | null = 0;
  let impossible: string | null = null;
  for (const pass of result.passes) {
    const a = pass.summary.acceptance;
    if (!a) continue;
    const verdict = acceptanceCredibility(a);
    if (!verdict.credible && impossible === null) impossible = verdict.why;
    drafts += a.drafts;
    accepted += a.acceptedTokens;
    draftTokens = draftTokens === null || a.draftTokens === null ? null : draftTokens + a.draftTokens;
  }
  if (drafts <= 0) return null;
  const totals = acceptanceCredibility({ drafts, draftTokens, acceptedTokens: accepted });
  const why = impossible ?? totals.why;
  return { tokensPerStep: 1 + accepted / drafts, credible: why === null, why };
}

/** Each counted timed reply's length, keyed for pairing (same pass, session, turn). */
export function lengthsOf(result: WorkloadResult): ReplyLength[] {
  return counted(result.passes).map((r) => ({
    pass: r.pass as number,
    session: r.sessionId,
    turn: r.turn,
    tokens: r.outputTokens,
  }));
}

/** The counted timed replies of every workload, as conversations the lossless checks can score. */
export function repliesByWorkload(results: TimedResults): Record<string, ConversationForCheck[]> {
  const out: Record<string, ConversationForCheck[]> = {};
  for (const w of WORKLOAD_IDS) {
    out[w] = counted(results[w].passes).map((r: RequestRecord) => ({
      messages: r.messages,
      tools: r.tools,
      reply: r.text,
      finishReason: r.finishReason,
    }));
  }
  return out;
}

/**
 * Why the stock engine's timed passes cannot be divided by, or null when every pass has a speed: a pass with no
 * speed (nothing counted, or no moment with every lane busy) leaves no ratio. The stock engine is the arena's, so
 * this voids the evaluation (refunded) rather than scoring or charging the candidate.
 */
export function stockPassWithoutSpeed(stock: TimedResults): string | null {
  for (const w of WORKLOAD_IDS) {
    for (const pass of stock[w].passes) {
      const s = pass.summary;
      if (s.speed !== null && s.speed > 0) continue;
      const why =
        s.counted === 0
          ? `none of its ${s.requests} requests counted${s.failed > 0 ? ` (${s.failed} failed)` : ""}`
          : s.speedKind === "all-lanes-busy" && !s.allBusySeconds
            ? `its ${s.lanes} lanes were never busy at once`
            : `${s.outputTokens} output tokens counted`;
      const n = typeof pass.pass === "number" ? pass.pass + 1 : pass.pass;
      return `the stock engine measured no speed in ${w} pass ${n}: ${why}`;
    }
  }
  return null;
}
