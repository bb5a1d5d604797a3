/** What happened to one evaluation a drill ran, read from PostgreSQL once the drill is over. */
export interface EvaluationOutcome {
  status: string;
  /** Charges and refunds in its ledger. */
  charges: number;
  refunds: number;
  /** How many times each pass (engine/workload/pass) was started, and whether a worker started it over. */
  passStarts: Record<string, number>;
  restartedFromZero: boolean;
}

/** One API answer while the fault lasted. */
export interface ProbeAnswer {
  name: string;
  /** The HTTP status, or 0 when nothing answered within the probe's time. */
  status: number;
  ms: number;
}

export interface DrillRow {
  fault: string;
  evaluations: EvaluationOutcome[];
  answers: ProbeAnswer[];
  /** Anything the drill itself saw go wrong (a step that timed out). */
  note?: string;
}

const TERMINAL = new Set(["scored", "failed", "void", "cancelled"]);

/** The table's figures for one drill: evaluations affected, stuck, lost, double-charged, restarted from zero. */
export function summarize(row: DrillRow) {
  const e = row.evaluations;
  return {
    affected: e.length,
    // never ended
    stuck: e.filter((x) => !TERMINAL.has(x.status)).length,
    // ended without a score: the work is gone (void is refunded; for an honest engine nothing else is right)
    lost: e.filter((x) => TERMINAL.has(x.status) && x.status !== "scored").length,
    // charged more than once, or charged for a void
    doubleCharged: e.filter((x) => x.charges > 1 || (x.status === "void" && x.charges - x.refunds > 0)).length,
    restartedFromZero: e.filter((x) => x.restartedFromZero || Object.values(x.passStarts).some((n) => n > 1)).length,
  };
}

/** "health 503×12 (≤0.4 s), budget 200×12 (≤0.2 s)": each probe's statuses in the order first seen, and its slowest. */
export function describeAnswers(answers: readonly ProbeAnswer[]): string {
  if (answers.length === 0) return "none asked";
  const byName = new Map<string, ProbeAnswer[]>();
  for (const answer of answers) byName.set(answer.name, [...(byName.get(answer.name) ?? []), answer]);
  return [...byName]
    .map(([name, list]) => {
      const counts = new Map<number, number>();
      for (const a of list) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
      const statuses = [...counts].map(([status, n]) => `${status === 0 ? "no answer" : status}×${n}`).join(" ");
      const slowest = Math.max(...list.map((a) => a.ms));
      return `${name} ${statuses} (≤${(slowest / 1000).toFixed(1)} s)`;
    })
    .join("; ");
}

const HEADERS = [
  "fault",
  "evaluations",
  "stuck",
  "lost",
  "double-charged",
  "restarted from zero",
  "API during the fault",
];

/** The drills' table, as plain text with aligned columns. */
export function formatTable(rows: readonly DrillRow[]): string {
  const cells = rows.map((row) => {
    const s = summarize(row);
    return [
      row.note ? `${row.fault} (${row.note})` : row.fault,
      String(s.affected),
      String(s.stuck),
      String(s.lost),
      String(s.doubleCharged),
      String(s.restartedFromZero),
      describeAnswers(row.answers),
    ];
  });
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join(" | ")
      .trimEnd();
  return [line(HEADERS), widths.map((w) => "-".repeat(w)).join("-|-"), ...cells.map(line)].join("\n");
}
