import type { JudgeEvent } from "./events";
import type { WorkloadRatio } from "./pairing";
import type { PassSummary } from "./speeds/summary";

const f = (x: number | null | undefined, d = 1) => (x === null || x === undefined ? "–" : x.toFixed(d));

/** A one-line progress bar on a terminal; one line per pass elsewhere. */
export function progressPrinter(stream: NodeJS.WriteStream, label: string): (e: JudgeEvent) => void {
  const tty = stream.isTTY === true;
  return (e) => {
    const pass = e.pass === "warmup" ? "warm-up" : `pass ${e.pass + 1}`;
    if (e.type === "pass-started") {
      if (!tty)
        stream.write(`${label} ${e.workload} ${pass}: ${e.lanes} lanes × ${e.interleave}, ${e.passSeconds} s\n`);
    } else if (e.type === "pass-progress" && tty) {
      const share = Math.min(1, e.elapsedSeconds / e.passSeconds);
      const bar = "█".repeat(Math.round(share * 24)).padEnd(24, "░");
      stream.write(
        `\r${label} ${e.workload} ${pass} ${bar} ${e.elapsedSeconds.toFixed(0)}/${e.passSeconds} s  ${e.requestsDone} done, ${e.requestsInFlight} in flight  ${e.tokensPerSecond.toFixed(0)} tok/s   `,
      );
    } else if (e.type === "pass-ended") {
      const s = e.summary;
      stream.write(
        `${tty ? "\r\x1b[2K" : ""}${label} ${e.workload} ${pass}: speed ${f(s.speed)} tok/s, ${s.counted}/${s.requests} counted\n`,
      );
    }
  };
}

export function resultTable(rows: { engine: string; summary: PassSummary }[]): string {
  const head = [
    "engine",
    "workload",
    "pass",
    "speed tok/s",
    "req",
    "failed",
    "TTFT p50/p90/p99 ms",
    "TPOT p50/p90/p99 ms",
    "ITL p50 ms",
    "cache hit tok/req",
    "late max ms",
    "judge GC max ms",
    "accept len",
  ];
  const body = rows.map(({ engine, summary: s }) => [
    engine,
    s.workload,
    s.pass === "warmup" ? "warm-up" : String(s.pass + 1),
    f(s.speed),
    String(s.requests),
    String(s.failed),
    `${f(s.ttftMs.p50, 0)}/${f(s.ttftMs.p90, 0)}/${f(s.ttftMs.p99, 0)}`,
    `${f(s.tpotMs.p50)}/${f(s.tpotMs.p90)}/${f(s.tpotMs.p99)}`,
    f(s.itlMs.p50),
    `${f(s.cacheHit.tokenWeighted, 2)}/${f(s.cacheHit.perRequest, 2)}`,
    f(s.latenessMs.max),
    f(s.judgeGc?.maxMs),
    f(s.acceptance?.meanAcceptedLength, 2),
  ]);
  return table([head, ...body]);
}

export function ratioTable(ratios: WorkloadRatio[]): string {
  const rows = ratios.map((r) => [
    r.workload,
    ...r.passes.map((p) => `${f(p.ratio, 3)}${p.zeroedForFailures ? " (failures)" : ""}`),
    f(r.ratio, 3),
  ]);
  const passes = Math.max(...ratios.map((r) => r.passes.length));
  return table([["workload", ...Array.from({ length: passes }, (_, i) => `pass ${i + 1}`), "r_w (median)"], ...rows]);
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")).join("\n");
}
