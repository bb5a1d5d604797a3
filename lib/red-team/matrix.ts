import type { GateKey, GateRow } from "../gates";
import type { MatrixMode, RowKind } from "./modes";
import type { PodRun } from "./pod-run";

/** One cell of the matrix: a run's gate, as the evaluation page's gate table shows it. */
export interface MatrixCell {
  mode: string;
  kind: RowKind;
  seed: string;
  key: GateKey;
  check: string;
  measured: string;
  limit: string;
  pass: boolean;
}

/** What one run means for its row: honest rows must pass every gate, attacks must fail by a section 9 gate. */
export interface RunVerdict {
  mode: string;
  kind: RowKind;
  seed: string;
  outcome: PodRun["outcome"];
  reason: string | null;
  failedGates: GateKey[];
  /** The gates section 9 names for an attack; empty for A/A and honest rows. */
  expectedGates: readonly GateKey[];
  /** A/A and honest: every gate passed (scored). Attack: scored 0, by one of `expectedGates` failing. */
  asExpected: boolean;
  specscore: number | null;
  speedup: number | null;
  wallSeconds: number;
}

export interface ChanceFailures {
  /** A/A and honest runs that ended with a record (scored or failed). */
  runs: number;
  /** Of those, runs in which any gate failed. */
  failed: number;
  share: number;
  /** Per gate: how many of those runs it failed. */
  byGate: Partial<Record<GateKey, number>>;
  /** Runs that ended without a record (void or an error): not counted above. */
  withoutRecord: number;
}

export interface MatrixResult {
  profile: string;
  seeds: string[];
  cells: MatrixCell[];
  verdicts: RunVerdict[];
  chance: ChanceFailures;
  runs: PodRun[];
}

function failedGates(rows: readonly GateRow[]): GateKey[] {
  return rows.filter((r) => !r.pass).map((r) => r.key);
}

/** The verdict on one run for its row. */
export function verdictOf(row: MatrixMode, run: PodRun): RunVerdict {
  const failed = run.record ? failedGates(run.record.gates) : [];
  // a caught attack is a measurement scored 0 (protocol section 5): the agent reports it `scored` with its record;
  // an agent built before that rule reported it `failed`, and the failed gates in the record decide either way
  const asExpected =
    row.kind === "attack"
      ? (run.outcome === "scored" || run.outcome === "failed") &&
        run.record?.specscore === 0 &&
        failed.some((k) => row.caughtBy.includes(k))
      : run.outcome === "scored" && failed.length === 0;
  return {
    mode: run.mode,
    kind: row.kind,
    seed: run.seed,
    outcome: run.outcome,
    reason: run.reason,
    failedGates: failed,
    expectedGates: row.caughtBy,
    asExpected,
    specscore: run.record?.specscore ?? null,
    speedup: run.record?.speedup ?? null,
    wallSeconds: run.wallSeconds,
  };
}

/** The matrix's cells: every gate row of every run that produced a record. */
export function cellsOf(row: MatrixMode, run: PodRun): MatrixCell[] {
  return (run.record?.gates ?? []).map((g) => ({
    mode: run.mode,
    kind: row.kind,
    seed: run.seed,
    key: g.key,
    check: g.check,
    measured: g.measured,
    limit: g.limit,
    pass: g.pass,
  }));
}

/** How often a gate failed by chance: over the A/A and honest rows' runs, any gate failing counts once. */
export function chanceFailures(verdicts: readonly RunVerdict[]): ChanceFailures {
  const honest = verdicts.filter((v) => v.kind !== "attack");
  const recorded = honest.filter((v) => v.outcome === "scored" || v.outcome === "failed");
  const byGate: Partial<Record<GateKey, number>> = {};
  let failed = 0;
  for (const v of recorded) {
    if (v.failedGates.length === 0 && v.outcome === "scored") continue;
    failed += 1;
    for (const key of v.failedGates) byGate[key] = (byGate[key] ?? 0) + 1;
  }
  return {
    runs: recorded.length,
    failed,
    share: recorded.length === 0 ? 0 : failed / recorded.length,
    byGate,
    withoutRecord: honest.length - recorded.length,
  };
}

/** Assembles the matrix from its runs, in the rows' order. */
export function assembleMatrix(
  profile: string,
  seeds: readonly string[],
  rows: readonly MatrixMode[],
  runs: readonly PodRun[],
): MatrixResult {
  const cells: MatrixCell[] = [];
  const verdicts: RunVerdict[] = [];
  for (const seed of seeds) {
    for (const row of rows) {
      const run = runs.find((r) => r.mode === row.mode && r.seed === seed);
      if (!run) continue;
      cells.push(...cellsOf(row, run));
      verdicts.push(verdictOf(row, run));
    }
  }
  return { profile, seeds: [...seeds], cells, verdicts, chance: chanceFailures(verdicts), runs: [...runs] };
}
