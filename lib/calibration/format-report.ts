import type { CalibrationReport, Spread } from "../protocol/calibration-schema";

const pct = (x: number | null | undefined, digits = 2) =>
  x === null || x === undefined ? "–" : `${(x * 100).toFixed(digits)}%`;
const num = (x: number | null, digits = 4) => (x === null ? "–" : Number(x.toPrecision(digits)).toString());
const range = (s: Spread | null, digits = 3) =>
  s === null ? "–" : `${s.mean.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)}, n ${s.n})`;

/** The report's headline figures as lines of text, for the command's output. */
export function formatCalibration(r: CalibrationReport): string {
  const lines = [
    `calibration of ${r.task}, protocol v${r.protocol_version}, profile ${r.profile}: ${r.label}`,
    `A/A runs: ${r.aa.runs.map((x) => `${x.outcome} ${x.specscore === null ? "–" : x.specscore.toFixed(3)}`).join(", ")}`,
    `A/A SpecScore error: mean ${pct(r.aa.specscore_error?.mean)}, max ${pct(r.aa.specscore_error?.max)}; speed only: mean ${pct(r.aa.speedup_error?.mean)}, max ${pct(r.aa.speedup_error?.max)}`,
    ...(["solo", "team", "busy"] as const).map(
      (w) => `  ${w} ratio ${range(r.aa.ratio_spread[w].ratio)}; passes ${range(r.aa.ratio_spread[w].passes)}`,
    ),
    ...r.references.map(
      (x) =>
        `reference ${x.key}: ${x.outcome}, SpecScore ${x.specscore === null ? "–" : x.specscore.toFixed(3)}, speedup ${x.speedup === null ? "–" : x.speedup.toFixed(3)}${x.failed_gates.length ? `, failed ${x.failed_gates.join(", ")}` : ""}`,
    ),
    "gates (statistic: A/A mean (range) | references | limit | worst margin):",
    ...r.gates.map(
      (g) =>
        `  ${g.key}: ${range(g.aa.spread, 4)} passed ${g.aa.passed}/${g.aa.runs} | ${g.references.map((x) => `${x.key} ${num(x.value)}${x.pass === false ? " ✗" : ""}`).join(", ") || "–"} | ${g.direction === "max" ? "≤" : "≥"} ${num(g.limit)} | ${num(g.margin)}`,
    ),
    `stock cache hit, token-weighted ${pct(r.cache.overall.token_weighted, 1)} (target ${pct(r.cache.targets.token_weighted, 1)}), per request ${pct(r.cache.overall.per_request, 1)} (target ${pct(r.cache.targets.per_request, 1)})`,
    ...(["solo", "team", "busy"] as const).map(
      (w) =>
        `  ${w}: token-weighted ${range(r.cache.stock[w].token_weighted)}; per request ${range(r.cache.stock[w].per_request)}`,
    ),
    `returning-session cached share: ${r.cache.returning_session_share.note}`,
    ...(r.sampling_audit
      ? [
          `sampling audit (shown, not gated; flags at p < ${r.sampling_audit.alpha ?? "–"}): ${r.sampling_audit.aa.false_alarms} false alarm(s) in ${r.sampling_audit.aa.audits} A/A audits; ${r.sampling_audit.references.map((x) => `${x.key} ${x.candidate ? `p ${num(x.candidate.p_value)}${x.candidate.consistent ? "" : " flagged"}` : "–"}`).join(", ") || "no references"}`,
          `sampled replies scored per engine: ${r.sampling_audit.likelihood_replies.min ?? "–"}–${r.sampling_audit.likelihood_replies.max ?? "–"} (the profile asks ${r.sampling_audit.likelihood_replies.asked})`,
        ]
      : []),
    `not measured: ${r.not_measured.join("; ")}`,
    `wall ${r.wall_seconds} s, ${r.concurrency} pod(s) at once, SIM_SPEED ${r.sim_speed}`,
  ];
  return lines.join("\n");
}
