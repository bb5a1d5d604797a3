import type { GateKey, ResultRecord } from "../../gates/record/schema";
import { currentProtocol, WORKLOAD_IDS } from "../../protocol";

export type Verdict = "ok" | "warn" | "FAIL";

export interface GateLine {
  key: GateKey;
  verdict: Verdict;
  check: string;
  measured: string;
  limit: string;
  /** For a FAIL, the board's reason; for a warn, how close it came. */
  note: string | null;
}

/** A gate warns when it passed with less than a quarter of its limit to spare. */
export const WARN_SHARE = 0.25;

/** How far an interval lies from `center`: 0 when it holds it, else the distance of its nearer end. */
const outside = (low: number, high: number, center: number) => Math.max(0, low - center, center - high);

/**
 * How much of each gate's limit a passing figure used, 0..1 and more, from the record's own numbers and limits: the
 * share at which `warn` starts is 1 − WARN_SHARE. null where the gate has no figure to measure it by.
 */
export function limitUsed(record: ResultRecord, key: GateKey): number | null {
  const z = currentProtocol().gates.z;
  const limits = record.limits;
  switch (key) {
    case "memory": {
      // the engine is told to hold GPU_MEMORY_UTILIZATION of the device: the slack above it is what can run out
      const spare = record.memory.allowed_mib - record.memory.peak_mib;
      return 1 - spare / limits.memory_slack_mib;
    }
    case "fidelity":
      return record.fidelity === null ? null : record.fidelity / limits.fidelity_ceiling;
    case "likelihood":
    case "argmax": {
      const g = record[key];
      const bound = key === "likelihood" ? limits.likelihood_bound : limits.argmax_bound;
      return g === null ? null : outside(g.gap - z * g.se, g.gap + z * g.se, 0) / bound;
    }
    case "greedy": {
      const floor = limits.greedy_agreement_floor;
      if (floor === null || record.greedy_agreement === null) return null;
      // at the floor the whole limit is used; a quarter of the floor above it still warns
      return 1 - (record.greedy_agreement - floor) / floor;
    }
    case "length": {
      const p = record.lengths.pooled;
      return p.low === null || p.high === null ? null : outside(p.low, p.high, 1) / limits.length_margin;
    }
    case "answers": {
      const share = currentProtocol().gates.unansweredShare;
      const worst = Math.max(
        ...(["greedy", "likelihood", "fidelity"] as const).map((c) => {
          const a = record.answers[c].candidate;
          return a.requests === 0 ? 0 : a.unanswered / a.requests;
        }),
      );
      return worst / share;
    }
    default:
      return null;
  }
}

/** One line per gate of the record's table: `ok`, `warn` (passed within a quarter of its limit) or `FAIL`. */
export function gateLines(record: ResultRecord): GateLine[] {
  return record.gates.map((gate) => {
    const used = limitUsed(record, gate.key);
    const verdict: Verdict = !gate.pass ? "FAIL" : used !== null && used > 1 - WARN_SHARE ? "warn" : "ok";
    const note =
      verdict === "FAIL"
        ? gate.reason
        : verdict === "warn"
          ? `within a quarter of its limit (${Math.round(Math.min(used!, 1) * 100)}% of it used)`
          : null;
    return { key: gate.key, verdict, check: gate.check, measured: gate.measured, limit: gate.limit, note };
  });
}

export function formatGateLine(line: GateLine): string {
  return `${line.verdict.padEnd(4)}  ${line.check.padEnd(31)} ${line.measured.padEnd(24)} limit ${line.limit}${line.note ? `  (${line.note})` : ""}`;
}

/** The ratios and SpecScore, as the evaluation page heads them. */
export function scoreLines(record: ResultRecord): string[] {
  const ratios = WORKLOAD_IDS.map(
    (w) =>
      `${w} ${record.ratios[w].ratio.toFixed(2)}× (passes ${record.ratios[w].passes.map((p) => p.toFixed(2)).join(", ")})`,
  );
  const score =
    record.specscore === null
      ? `no SpecScore: ${record.void ?? record.reason ?? "void"}`
      : `SpecScore ${record.specscore.toFixed(3)}${record.reason ? `: ${record.reason}` : ""} (speedup ${record.speedup.toFixed(3)} whatever the gates say)`;
  return [`ratios: ${ratios.join(" · ")}`, score];
}
