import { currentProtocol, type WorkloadId } from "@/lib/protocol";
import type { Acceptance } from "../metrics/acceptance";
import type { RequestRecord } from "../records";
import type { GcSummary } from "../run/gc-watch";
import { type Percentiles, percentiles } from "../stats";
import { allLanesBusySpeed, cacheHit, itlPerToken, requestTimeSpeed, tpotMs, ttftMs } from "./speeds";

/** A pass's figures: its speed as the protocol defines it for the workload, and what the board shows beside it. */
export interface PassSummary {
  workload: WorkloadId;
  pass: number | "warmup";
  lanes: number;
  speedKind: "request-time" | "all-lanes-busy";
  speed: number | null;
  requests: number;
  counted: number;
  failed: number;
  outputTokens: number;
  allBusySeconds: number | null;
  ttftMs: Percentiles;
  tpotMs: Percentiles;
  itlMs: Percentiles;
  e2eMs: Percentiles;
  cacheHit: { tokenWeighted: number | null; perRequest: number | null };
  /** sent − scheduled: how late the client itself was. */
  latenessMs: Percentiles & { max: number | null };
  windowCuts: number;
  acceptance: Acceptance | null;
  errors: Record<string, number>;
  /** The judge's own GC pauses during the pass (its lanes' thread); null where nobody watched. */
  judgeGc: GcSummary | null;
}

const errorKind = (e: string) => e.replace(/\d+/g, "N").slice(0, 60);

export function summarizePass(
  workload: WorkloadId,
  pass: number | "warmup",
  lanes: number,
  records: readonly RequestRecord[],
  acceptance: Acceptance | null,
  judgeGc: GcSummary | null = null,
): PassSummary {
  const kind = currentProtocol().workloads[workload].speed;
  const counted = records.filter((r) => r.counted);
  const busy = kind === "all-lanes-busy" ? allLanesBusySpeed(records, lanes) : null;
  const lateness = records.map((r) => r.sentMs - r.scheduledMs);
  const errors: Record<string, number> = {};
  for (const r of records) {
    if (r.counted) continue;
    const k = r.error ? errorKind(r.error) : r.outputTokens > r.maxTokens ? "over max_tokens" : "not counted";
    errors[k] = (errors[k] ?? 0) + 1;
  }
  return {
    workload,
    pass,
    lanes,
    speedKind: kind,
    speed: kind === "request-time" ? requestTimeSpeed(records) : busy!.speed,
    requests: records.length,
    counted: counted.length,
    failed: records.length - counted.length,
    outputTokens: counted.reduce((a, r) => a + r.outputTokens, 0),
    allBusySeconds: busy ? busy.busyMs / 1000 : null,
    ttftMs: percentiles(counted.flatMap((r) => ttftMs(r) ?? [])),
    tpotMs: percentiles(counted.flatMap((r) => tpotMs(r) ?? [])),
    itlMs: percentiles(counted.flatMap((r) => itlPerToken(r))),
    e2eMs: percentiles(counted.flatMap((r) => (r.lastTokenMs === null ? [] : [r.lastTokenMs - r.sentMs]))),
    cacheHit: cacheHit(records),
    latenessMs: { ...percentiles(lateness), max: lateness.length ? Math.max(...lateness) : null },
    windowCuts: records.filter((r) => r.windowCut).length,
    acceptance,
    errors,
    judgeGc,
  };
}
