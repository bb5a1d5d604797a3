import type { PublicBoard } from "../board/public-board";
import { resultView } from "../board/result-view";
import type { BudgetLine } from "../budgets/remaining-budget";
import { WORKLOAD_IDS } from "../protocol";
import type { SubmissionView } from "../submissions/get-submission";

const fixed = (x: number | null | undefined, digits: number) =>
  x === null || x === undefined ? "–" : x.toFixed(digits);

/** What an evaluation's status means, in the words the guide uses. */
export const STATUS_MEANING: Record<string, string> = {
  queued: "waiting for a GPU slot",
  fetching: "fetching and sealing the speculator and the engine",
  running: "the timed passes: the candidate, then the stock engine",
  checking: "the lossless checks, both engines restarted",
  scored: "finished and scored",
  failed: "ended by the submission's own fault, charged",
  void: "ended by the arena's fault, refunded",
  cancelled: "cancelled",
};

/** `status <id>`: the submission, its evaluation's state, and when it is over its ratios, gates and SpecScore. */
export function submissionLines(view: SubmissionView, arenaUrl: string): string[] {
  const e = view.evaluation;
  const lines = [
    `submission ${view.id}: ${view.task_id} · ${view.split} · profile ${view.profile} · ${view.solution.method ?? "(no method)"} (${view.solution.kind})`,
    `  speculator ${view.speculator ? `${view.speculator.uri}@${view.speculator.revision}` : "none"} · engine ${view.engine.source}${view.engine.sha256 ? ` sha256 ${view.engine.sha256.slice(0, 12)}` : ""}`,
  ];
  if (!e) return [...lines, "  no evaluation"];
  const meaning = STATUS_MEANING[e.status] ?? "";
  lines.push(`evaluation ${e.id}: ${e.status}${e.phase ? ` (${e.phase})` : ""}${meaning ? ` — ${meaning}` : ""}`);
  if (e.refunded) lines.push("  refunded: it does not count against your budget");
  const result = resultView(e.result);
  if (e.status === "scored" || result) {
    lines.push(
      `  SpecScore ${e.specscore === null ? "none" : e.specscore.toFixed(3)}${e.reason ? `: ${e.reason}` : ""}`,
    );
  } else if (e.reason) {
    lines.push(`  reason: ${e.reason}`);
  }
  if (result) {
    const ratios = WORKLOAD_IDS.map((w) => {
      const v = result.workloads[w];
      return `${w} ${fixed(v.ratio, 2)}× (passes ${v.passes.map((p) => p.toFixed(2)).join(", ") || "–"})`;
    });
    lines.push(`  ${ratios.join(" · ")}`);
    for (const g of result.gates) {
      lines.push(`  ${g.pass ? "pass" : "FAIL"}  ${g.check.padEnd(31)} ${g.measured.padEnd(24)} limit ${g.limit}`);
    }
  }
  if (e.log_tail) lines.push("  the engine's last log lines:", ...e.log_tail.split("\n").map((l) => `    ${l}`));
  lines.push(`page: ${arenaUrl}/evaluations/${e.id}`);
  return lines;
}

export function budgetLines(account: string, budget: readonly BudgetLine[]): string[] {
  return [
    `account ${account}`,
    ...budget.map(
      (b) =>
        `  ${b.taskId.padEnd(11)} ${b.split.padEnd(4)} ${b.limit === null ? "unlimited" : `${b.remaining} of ${b.limit} left`} (${b.used} used)`,
    ),
  ];
}

type Row = PublicBoard["participants"][number];

function rowLine(r: Row): string {
  const who = `${r.account} · ${r.method ?? "(no method)"} ${r.kind}${r.speculator ? ` · ${r.speculator.uri}` : ""}`;
  const gate = r.lossless === null ? "–" : r.lossless ? "passed" : `failed: ${r.reason ?? ""}`;
  const rank = r.rank === null ? `${r.split}/${r.profile}` : String(r.rank);
  return `  ${rank.padEnd(9)} ${fixed(r.specscore, 3).padStart(6)}  ${fixed(r.ratios.solo, 2).padStart(5)} ${fixed(r.ratios.team, 2).padStart(5)} ${fixed(r.ratios.busy, 2).padStart(5)}  ${gate.padEnd(7)}  ${who}`;
}

/** `board`: the task's participants and references as the home page ranks them, and the unranked profiled runs. */
export function boardLines(board: PublicBoard): string[] {
  const header = `  ${"#".padEnd(9)} ${"score".padStart(6)}  ${"solo".padStart(5)} ${"team".padStart(5)} ${"busy".padStart(5)}  gate     who · solution`;
  const section = (title: string, rows: readonly Row[]) =>
    rows.length === 0 ? [`${title}: none yet`] : [`${title}:`, header, ...rows.map(rowLine)];
  return [
    `${board.task_id} board (protocol ${board.protocol_version})`,
    ...section("participants", board.participants),
    ...section("references", board.references),
    ...section("runs under test profiles (never ranked)", board.profiled.slice(0, 10)),
  ];
}
