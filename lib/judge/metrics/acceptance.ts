import type { Dispatcher } from "undici";
import { request } from "undici";
import { parsePrometheus, type Sample, sumByLabel, sumMetric } from "./prometheus";

/** The engine's own report of speculation over one pass, from its counters' deltas. Shown, never scored. */
export interface Acceptance {
  drafts: number;
  draftTokens: number | null;
  acceptedTokens: number;
  /** 1 + Δaccepted / Δdrafts: tokens per verify step. */
  meanAcceptedLength: number;
  /** Δaccepted at position i over Δdrafts. */
  perPosition: number[];
}

const DRAFTS = ["vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_drafts"];
const ACCEPTED = ["vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens"];
const DRAFT_TOKENS = ["vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_draft_tokens"];
const PER_POS = ["vllm:spec_decode_num_accepted_tokens_per_pos_total", "vllm:spec_decode_num_accepted_tokens_per_pos"];

const first = (samples: readonly Sample[], names: readonly string[]) => {
  for (const n of names) {
    const v = sumMetric(samples, n);
    if (v !== null) return v;
  }
  return null;
};

/** Acceptance between two /metrics snapshots; null when the engine reports no speculation or drafted nothing. */
export function acceptanceBetween(
  before: readonly Sample[] | null,
  after: readonly Sample[] | null,
): Acceptance | null {
  if (!before || !after) return null;
  const d0 = first(before, DRAFTS);
  const d1 = first(after, DRAFTS);
  const a0 = first(before, ACCEPTED);
  const a1 = first(after, ACCEPTED);
  if (d0 === null || d1 === null || a0 === null || a1 === null) return null;
  const drafts = d1 - d0;
  if (drafts <= 0) return null;
  const accepted = a1 - a0;
  const t0 = first(before, DRAFT_TOKENS);
  const t1 = first(after, DRAFT_TOKENS);
  let perPosition: number[] = [];
  for (const name of PER_POS) {
    const p0 = sumByLabel(before, name, "position");
    const p1 = sumByLabel(after, name, "position");
    if (p1.size === 0) continue;
    const positions = [...p1.keys()].map(Number).sort((a, b) => a - b);
    perPosition = positions.map((pos) => ((p1.get(String(pos)) ?? 0) - (p0.get(String(pos)) ?? 0)) / drafts);
    break;
  }
  return {
    drafts,
    draftTokens: t0 !== null && t1 !== null ? t1 - t0 : null,
    acceptedTokens: accepted,
    meanAcceptedLength: 1 + accepted / drafts,
    perPosition,
  };
}

/** The totals of an engine's speculation counters over one or more passes (deltas, summed). */
export interface AcceptanceCounts {
  drafts: number;
  /** null when the engine reports no drafted-token counter. */
  draftTokens: number | null;
  acceptedTokens: number;
  /** Accepted tokens per draft position over drafts (empty when not reported). */
  perPosition?: readonly number[];
}

/** Whether an engine's own acceptance report is possible at all, and if not, why (shown beside it, never scored). */
export interface Credibility {
  credible: boolean;
  why: string | null;
}

const ok: Credibility = { credible: true, why: null };

/**
 * A verify step drafts k tokens and keeps at most those k plus one of the target's, so a report is impossible when
 * its counters went backwards, when it accepted more tokens than it drafted, when a draft position accepted more
 * often than there were drafts, or when its tokens per verify step exceed k + 1 (k: drafted tokens per draft, or the
 * number of positions it reports when it reports no drafted tokens). Nothing to check it against is not a fault.
 */
export function acceptanceCredibility(a: AcceptanceCounts): Credibility {
  const no = (why: string): Credibility => ({ credible: false, why });
  if (!(a.drafts >= 0 && a.acceptedTokens >= 0 && (a.draftTokens === null || a.draftTokens >= 0)))
    return no("its speculation counters went backwards");
  if (a.drafts === 0) return a.acceptedTokens > 0 ? no("it accepted tokens without drafting any") : ok;
  if (a.draftTokens !== null && a.acceptedTokens > a.draftTokens)
    return no(`it reports more tokens accepted (${a.acceptedTokens}) than drafted (${a.draftTokens})`);
  const positions = a.perPosition ?? [];
  if (positions.some((rate) => rate > 1 + 1e-9))
    return no("a draft position accepted more often than there were drafts");
  const k = a.draftTokens !== null ? a.draftTokens / a.drafts : positions.length > 0 ? positions.length : null;
  const perStep = 1 + a.acceptedTokens / a.drafts;
  if (k !== null && perStep > k + 1 + 1e-9)
    return no(`${perStep.toFixed(2)} tokens per verify step is above k + 1 = ${formatK(k + 1)}`);
  return ok;
}

const formatK = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** Reads the engine's /metrics; null when it does not answer (acceptance is optional). */
export async function scrapeMetrics(baseUrl: string, dispatcher: Dispatcher): Promise<Sample[] | null> {
  try {
    const res = await request(`${baseUrl}/metrics`, { dispatcher, signal: AbortSignal.timeout(10_000) });
    if (res.statusCode !== 200) {
      await res.body.dump();
      return null;
    }
    return parsePrometheus(await res.body.text());
  } catch {
    return null;
  }
}
