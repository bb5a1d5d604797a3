import type { AuditView } from "./result-view";

/**
 * One engine's sampling audit in words for the evaluation page (shown, never gated under protocol v1): whether its
 * timed replies read as exact samples of the target's distribution, and the figures that say so.
 */
export function samplingAuditLine(who: string, a: AuditView | null): string {
  if (!a) return `${who}: no reply could be audited (each was cut for scoring)`;
  const p = a.p_value < 1e-4 ? "p < 0.0001" : `p = ${a.p_value.toFixed(4)}`;
  const lean =
    a.mean_u < 0.49 ? ", leaning to likelier tokens" : a.mean_u > 0.51 ? ", leaning to less likely tokens" : "";
  const outside = a.outside_share > 0 ? `, ${(a.outside_share * 100).toFixed(2)}% of tokens outside it` : "";
  const verdict = a.consistent ? "consistent with exact sampling" : "not consistent with exact sampling";
  return `${who}: ${verdict} (${a.tokens.toLocaleString("en-US")} tokens, ${p}${lean}${outside})`;
}
