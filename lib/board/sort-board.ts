import type { WorkloadId } from "@/lib/protocol";
import type { RankedEntry } from "./board-entry";

export type SortKey =
  | "rank"
  | "solution"
  | "who"
  | "score"
  | WorkloadId
  | `ttft-${WorkloadId}`
  | `tpot-${WorkloadId}`
  | `cache-${WorkloadId}`
  | `acceptance-${WorkloadId}`;

export type SortDirection = "asc" | "desc";

function value(e: RankedEntry, key: SortKey): number | string | null {
  const r = e.result;
  switch (key) {
    case "rank":
      return e.rank;
    case "solution":
      return (e.method ?? e.kind).toLowerCase();
    case "who":
      return e.account.toLowerCase();
    case "score":
      return r?.score ?? null;
    case "solo":
    case "team":
    case "busy":
      return r?.workloads[key].ratio ?? null;
  }
  const [what, workload] = key.split("-") as ["ttft" | "tpot" | "cache" | "acceptance", WorkloadId];
  const w = r?.workloads[workload];
  if (!w) return null;
  if (what === "ttft") return w.latency.candidate?.ttft?.p50 ?? null;
  if (what === "tpot") return w.latency.candidate?.tpot?.p50 ?? null;
  if (what === "cache") return w.cacheHit.candidate;
  // an impossible report sorts with the rows that have none
  return w.acceptanceCredible === false ? null : w.acceptance;
}

/** Sorts a board by a column; rows without a value stay at the bottom whichever the direction. */
export function sortBoard(entries: readonly RankedEntry[], key: SortKey, direction: SortDirection): RankedEntry[] {
  const sign = direction === "asc" ? 1 : -1;
  return [...entries].sort((a, b) => {
    const va = value(a, key);
    const vb = value(b, key);
    if (va === null && vb === null) return a.rank - b.rank;
    if (va === null) return 1;
    if (vb === null) return -1;
    const c = typeof va === "number" && typeof vb === "number" ? va - vb : String(va).localeCompare(String(vb));
    return c * sign || a.rank - b.rank;
  });
}

/** The direction a column sorts in on its first click: better first. */
export function defaultDirection(key: SortKey): SortDirection {
  if (key === "rank" || key === "solution" || key === "who") return "asc";
  if (key.startsWith("ttft-") || key.startsWith("tpot-")) return "asc";
  return "desc";
}
