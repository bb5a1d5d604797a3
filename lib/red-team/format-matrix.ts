import { GATE_KEYS, type GateKey } from "../gates";
import type { MatrixResult, RunVerdict } from "./matrix";

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join(" | ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n");
}

function verdictText(v: RunVerdict): string {
  if (v.outcome === "void" || v.outcome === "error") return `${v.outcome.toUpperCase()}: ${v.reason ?? ""}`;
  if (v.kind === "attack") {
    const by = v.failedGates.filter((k) => v.expectedGates.includes(k));
    return v.asExpected
      ? `caught by ${by.join(", ")}${v.failedGates.length > by.length ? ` (also ${v.failedGates.filter((k) => !by.includes(k)).join(", ")})` : ""}`
      : `NOT CAUGHT by ${v.expectedGates.join("/")}${v.failedGates.length ? ` (failed: ${v.failedGates.join(", ")})` : " (passed every gate)"}`;
  }
  return v.asExpected ? "passes every gate" : `FAILED ${v.failedGates.join(", ")}`;
}

/** The matrix as a text table: one line per run (mode × seed), one column per gate, measured value and verdict. */
export function formatMatrix(result: MatrixResult): string {
  const keys: GateKey[] = GATE_KEYS.filter((k) => result.cells.some((c) => c.key === k));
  const limitOf = (k: GateKey) => result.cells.find((c) => c.key === k)?.limit ?? "";
  const checkOf = (k: GateKey) => result.cells.find((c) => c.key === k)?.check ?? k;
  const header = ["mode", "row", "seed", ...keys.map((k) => checkOf(k)), "speedup", "verdict"];
  const limits = ["limit", "", "", ...keys.map(limitOf), "", ""];
  const rows = result.verdicts.map((v) => {
    const cells = keys.map((k) => {
      const cell = result.cells.find((c) => c.mode === v.mode && c.seed === v.seed && c.key === k);
      return cell ? `${cell.measured} ${cell.pass ? "✓" : "✗"}` : "—";
    });
    return [
      v.mode,
      v.kind,
      v.seed,
      ...cells,
      v.speedup === null ? "—" : v.speedup.toFixed(3),
      `${v.asExpected ? "ok" : "UNEXPECTED"}: ${verdictText(v)}`,
    ];
  });
  return table(header, [limits, ...rows]);
}

/** How often a gate failed by chance on the A/A and honest rows. */
export function formatChance(result: MatrixResult): string {
  const c = result.chance;
  const gates = Object.entries(c.byGate)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  const modes = [...new Set(result.verdicts.filter((v) => v.kind !== "attack").map((v) => v.mode))].join(", ");
  return [
    `chance failures (A/A and honest rows: ${modes}; ${result.seeds.length} seed(s), profile ${result.profile}):`,
    `  ${c.failed} of ${c.runs} runs failed any gate (${(100 * c.share).toFixed(1)}%)${gates ? `; by gate: ${gates}` : ""}`,
    ...(c.withoutRecord ? [`  ${c.withoutRecord} run(s) ended without a record (void or error), not counted`] : []),
  ].join("\n");
}
