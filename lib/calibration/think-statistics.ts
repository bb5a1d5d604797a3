import type { RequestRecord } from "../judge/records";
import { cacheHit } from "../judge/speeds/speeds";

type Reading = Pick<RequestRecord, "sessionId" | "turn" | "usage" | "counted">;

export interface ThinkStatistics {
  /** cached_tokens over prompt_tokens, summed over the requests that reported both. */
  tokenWeighted: number | null;
  /** The mean of each request's cached share. */
  perRequest: number | null;
  /** Requests that came back after a think time past the cap (a returning session), and were read. */
  returning: number;
  /**
   * Of a returning session's history (its previous request's prompt and reply, as the engine reported them), the
   * share the engine still had cached when it came back, token-weighted; null when no returning request was read.
   */
  returningHistoryCached: number | null;
  requests: number;
}

/**
 * The stock engine's cache statistics over one pass's records (section 4's calibration targets): the hit, and the
 * share of a returning session's history still cached. `returningTurn(sessionId, turn)` says whether that turn's
 * recorded think time passed the cap.
 */
export function thinkStatistics(
  records: readonly Reading[],
  returningTurn: (sessionId: string, turn: number) => boolean,
): ThinkStatistics {
  const byTurn = new Map<string, Reading>();
  for (const r of records) byTurn.set(`${r.sessionId}\u0000${r.turn}`, r);
  let requests = 0;
  let returning = 0;
  let historyCached = 0;
  let history = 0;
  for (const r of records) {
    if (!r.usage.promptTokens || r.usage.promptTokens <= 0) continue;
    requests++;
    if (r.turn === 0 || !returningTurn(r.sessionId, r.turn)) continue;
    const previous = byTurn.get(`${r.sessionId}\u0000${r.turn - 1}`);
    const before = previous ? (previous.usage.promptTokens ?? 0) + (previous.usage.completionTokens ?? 0) : 0;
    if (before <= 0) continue;
    returning++;
    historyCached += Math.min(r.usage.cachedTokens ?? 0, before);
    history += before;
  }
  const hit = cacheHit(records);
  return {
    tokenWeighted: hit.tokenWeighted,
    perRequest: hit.perRequest,
    returning,
    returningHistoryCached: history > 0 ? historyCached / history : null,
    requests,
  };
}
