import { WORKLOAD_IDS } from "@/lib/protocol";
import type { PassRow } from "./get-evaluation";

export interface PassSpeedPair {
  workload: string;
  pass: number;
  candidate: number | null;
  stock: number | null;
}

/** Pairs each pass's candidate and stock speeds, in workload order (solo, team, busy), then pass. */
export function pairPassSpeeds(rows: readonly PassRow[]): PassSpeedPair[] {
  const pairs = new Map<string, PassSpeedPair>();
  for (const r of rows) {
    const key = `${r.workload}:${r.pass}`;
    const pair = pairs.get(key) ?? { workload: r.workload, pass: r.pass, candidate: null, stock: null };
    if (r.engine === "candidate") pair.candidate = r.speed;
    else if (r.engine === "stock") pair.stock = r.speed;
    pairs.set(key, pair);
  }
  const order = (w: string) => {
    const i = (WORKLOAD_IDS as readonly string[]).indexOf(w);
    return i === -1 ? WORKLOAD_IDS.length : i;
  };
  return [...pairs.values()].sort((a, b) => order(a.workload) - order(b.workload) || a.pass - b.pass);
}
