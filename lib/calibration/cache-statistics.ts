import type { ResultRecord } from "../gates";
import { WORKLOAD_IDS } from "../protocol";
import type { CacheCalibration } from "../protocol/calibration-schema";
import { spread } from "./spread";

export interface CacheTargets {
  tokenWeighted: number;
  perRequest: number;
  source: string;
}

export const CACHE_SOURCE =
  "the result records' cache_hits: usage.prompt_tokens_details.cached_tokens over each timed workload's requests, the stock engine's side of every A/A run";

export const RETURNING_SESSION_NOTE =
  "not measured: the result record keeps each workload's cache hit, not the share of a returning session's history still cached, and the data card names no target for it";

const mean = (values: readonly number[]) =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;

/**
 * The stock engine's prefix-cache hit per workload (token-weighted and per request) over the A/A runs' records,
 * their mean over workloads and runs, against the data card's targets. The returning-session share is reported as
 * not recorded: the records do not hold it.
 */
export function cacheStatistics(records: readonly ResultRecord[], targets: CacheTargets): CacheCalibration {
  const stock = {} as CacheCalibration["stock"];
  const tokenWeighted: number[] = [];
  const perRequest: number[] = [];
  for (const w of WORKLOAD_IDS) {
    const hits = records.flatMap((r) => {
      const hit = r.cache_hits[w].stock;
      return hit ? [hit] : [];
    });
    stock[w] = {
      token_weighted: spread(hits.map((h) => h.token_weighted)),
      per_request: spread(hits.map((h) => h.per_request)),
    };
    tokenWeighted.push(...hits.map((h) => h.token_weighted));
    perRequest.push(...hits.map((h) => h.per_request));
  }
  return {
    source: CACHE_SOURCE,
    targets: { token_weighted: targets.tokenWeighted, per_request: targets.perRequest, source: targets.source },
    stock,
    overall: { token_weighted: mean(tokenWeighted), per_request: mean(perRequest) },
    returning_session_share: { recorded: false, value: null, note: RETURNING_SESSION_NOTE },
  };
}
