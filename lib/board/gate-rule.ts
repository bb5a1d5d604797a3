import { currentProtocol } from "@/lib/protocol";
import type { GateView } from "./result-view";

/** A gate row as the evaluation page writes it: the measurement, its interval where it has one, and the rule. */
export interface GateRuleView {
  measured: string;
  /** "95% interval −0.0126 to +0.0054": what the rule is applied to. */
  interval: string | null;
  limit: string;
}

const MINUS = "\u2212";
const signed = (x: number, digits: number) => `${x > 0 ? "+" : x < 0 ? MINUS : ""}${Math.abs(x).toFixed(digits)}`;
const plain = (x: number, digits: number) => (x < 0 ? `${MINUS}${Math.abs(x).toFixed(digits)}` : x.toFixed(digits));
const decimals = (text: string) => text.split(".")[1]?.length ?? 0;

/**
 * The record writes a two-sided check's limit as "within ±0.003 at 95%", which beside a measured −0.0036 reads as a
 * failure that passed. The rule (protocol section 6, lib/gates/stats/equivalence.ts) is that a check fails only when
 * its whole interval of z standard errors each way lies beyond the bound; this writes the limit as that rule and
 * the interval it is applied to. Rows of any other form are kept as the record wrote them.
 */
export function gateRule(g: Pick<GateView, "measured" | "limit">): GateRuleView {
  const { z } = currentProtocol().gates;
  const limit = /^within ±([0-9.e-]+) at (\d+)%$/.exec(g.limit.trim());
  const gap = /^([+-]?)([0-9.]+) ± ([0-9.]+)$/.exec(g.measured.trim());
  if (limit && gap) {
    const digits = decimals(gap[2]!);
    const center = (gap[1] === "-" ? -1 : 1) * Number(gap[2]);
    const half = Number(gap[3]);
    return {
      measured: `${signed(center, digits)} ± ${half.toFixed(digits)}`,
      interval: `${limit[2]}% interval ${signed(center - half, digits)} to ${signed(center + half, digits)}`,
      limit: `fails only if the whole ${limit[2]}% interval (${z} standard errors each way) lies beyond ±${limit[1]}`,
    };
  }
  const ratioLimit = /^1 ± ([0-9.]+) at (\d+)%$/.exec(g.limit.trim());
  const ratio = /^([0-9.]+) \[([0-9.]+), ([0-9.]+)\]$/.exec(g.measured.trim());
  if (ratioLimit && ratio) {
    const margin = Number(ratioLimit[1]);
    return {
      measured: ratio[1]!,
      interval: `${ratioLimit[2]}% interval ${ratio[2]} to ${ratio[3]}`,
      limit: `fails only if the whole ${ratioLimit[2]}% interval lies outside ${plain(1 - margin, 2)} to ${plain(1 + margin, 2)}`,
    };
  }
  return { measured: g.measured, interval: null, limit: g.limit };
}
