import type { ThinkPointResult } from "./think-search";

const pct = (x: number | null | undefined) => (x === null || x === undefined ? "—" : `${(x * 100).toFixed(1)}%`);

/** The search as a table: each point's hit per workload and overall, the returning sessions' cached history. */
export function formatThinkSearch(
  results: readonly ThinkPointResult[],
  targets: { tokenWeighted: number; perRequest: number },
  nearest: { point: ThinkPointResult; miss: number } | null,
): string {
  const workloads = [...new Set(results.flatMap((r) => Object.keys(r.workloads)))];
  const header = [
    "c",
    "m",
    ...workloads.map((w) => `${w} hit (tokens / requests)`),
    "overall (tokens / requests)",
    "returning: history cached (n)",
    "every lane busy",
  ];
  const rows = results.map((r) => [
    String(r.scale),
    String(r.interleave),
    ...workloads.map((w) => {
      const s = r.workloads[w as keyof typeof r.workloads];
      return s ? `${pct(s.tokenWeighted)} / ${pct(s.perRequest)}` : "—";
    }),
    `${pct(r.overall.tokenWeighted)} / ${pct(r.overall.perRequest)}${nearest?.point === r ? "  ← nearest" : ""}`,
    `${pct(r.overall.returningHistoryCached)} (${Object.values(r.workloads).reduce((a, s) => a + s.returning, 0)})`,
    Object.entries(r.workloads)
      .map(([w, s]) => `${w} ${s.allBusySeconds === null ? "—" : `${s.allBusySeconds.toFixed(1)} s`}`)
      .join(", "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  return [
    line(header),
    ...rows.map(line),
    `data card's targets: ${pct(targets.tokenWeighted)} token-weighted, ${pct(targets.perRequest)} per request`,
    nearest
      ? `nearest: c ${nearest.point.scale}, m ${nearest.point.interleave}, ${(nearest.miss * 100).toFixed(1)} points off at worst`
      : "nearest: none (no point measured both)",
  ].join("\n");
}
