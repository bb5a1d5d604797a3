import type { Dispatcher } from "undici";
import type { Pool } from "../judge/pool/schema";
import { planFor, runWorkloadPass } from "../judge/run/run-workload";
import type { EvaluationPlan } from "../judge/sessions/plan";
import type { TokenCounter } from "../judge/tokens/token-counter";
import { currentProtocol, type Protocol, type TaskId, type WorkloadId } from "../protocol";
import { type ThinkStatistics, thinkStatistics } from "./think-statistics";

/** One setting of the two values section 4 calibrates on the stock engine's cache: `c` and each workload's `m`. */
export interface ThinkPoint {
  scale: number;
  interleave: number;
}

export interface StockEngine {
  url: string;
  servedName: string;
  stop(): Promise<void>;
}

export interface ThinkSearchOptions {
  task: TaskId;
  profile: string;
  points: readonly ThinkPoint[];
  /** The workloads played at each point, in the protocol's order (solo's one live session is never evicted). */
  workloads: readonly WorkloadId[];
  /** Points played at once, each on a stock engine of its own. */
  concurrency: number;
  seed: string;
  pool: Pool;
  counter: TokenCounter;
  dispatcher: Dispatcher;
  /** A fresh stock engine for one point: one start serves its workloads, as in an evaluation. */
  startStock(): Promise<StockEngine>;
  protocol?: Protocol;
  onPoint?(result: ThinkPointResult): void;
}

export interface ThinkPointResult extends ThinkPoint {
  /** Each workload's first pass, after its warm-up wave. */
  workloads: Partial<Record<WorkloadId, ThinkStatistics & { allBusySeconds: number | null }>>;
  /** The mean over the workloads played. */
  overall: { tokenWeighted: number | null; perRequest: number | null; returningHistoryCached: number | null };
  wallSeconds: number;
}

const mean = (values: readonly (number | null)[]) => {
  const xs = values.filter((v): v is number => v !== null);
  return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
};

/** The plan with every timed pass of `workload` holding `interleave` live sessions a lane (the warm-up is one wave). */
export function withInterleave(plan: EvaluationPlan, workload: WorkloadId, interleave: number): EvaluationPlan {
  const w = plan.workloads[workload];
  for (const p of w.passes) {
    const shallowest = Math.min(...p.queues.map((q) => q.length));
    if (shallowest < interleave)
      throw new Error(
        `m = ${interleave} needs ${interleave} sessions a lane; the pool gives ${workload} ${shallowest}`,
      );
  }
  return {
    ...plan,
    workloads: {
      ...plan.workloads,
      [workload]: {
        warmup: w.warmup,
        passes: w.passes.map((p) => ({ ...p, interleave })),
      },
    },
  };
}

/** Whether a session's turn came back after a think time past the cap: a returning session (section 4). */
function returningTurns(pool: Pool, capSeconds: number): (sessionId: string, turn: number) => boolean {
  const sessions = new Map(pool.sessions.map((s) => [s.id, s]));
  return (sessionId, turn) => (sessions.get(sessionId)?.turns[turn]?.thinkSeconds ?? 0) > capSeconds;
}

async function playPoint(point: ThinkPoint, options: ThinkSearchOptions): Promise<ThinkPointResult> {
  const protocol = options.protocol ?? currentProtocol();
  const started = performance.now();
  let plan = planFor({
    pool: options.pool,
    evaluationSeed: options.seed,
    task: options.task,
    profile: options.profile,
  });
  for (const w of options.workloads) {
    if (w !== "solo") plan = withInterleave(plan, w, point.interleave);
  }
  const returning = returningTurns(options.pool, protocol.thinkTime.capSeconds);
  const engine = await options.startStock();
  const workloads: ThinkPointResult["workloads"] = {};
  try {
    for (const workload of options.workloads) {
      const shared = {
        url: engine.url,
        servedName: engine.servedName,
        task: options.task,
        workload,
        profile: options.profile,
        pool: options.pool,
        evaluationSeed: options.seed,
        plan,
        dispatcher: options.dispatcher,
        counter: options.counter,
        thinkScale: point.scale,
      };
      await runWorkloadPass(shared, "warmup");
      const pass = await runWorkloadPass(shared, 0);
      workloads[workload] = {
        ...thinkStatistics(pass.records, returning),
        allBusySeconds: pass.summary.allBusySeconds,
      };
    }
  } finally {
    await engine.stop();
  }
  const played = Object.values(workloads);
  return {
    ...point,
    workloads,
    overall: {
      tokenWeighted: mean(played.map((w) => w.tokenWeighted)),
      perRequest: mean(played.map((w) => w.perRequest)),
      returningHistoryCached: mean(played.map((w) => w.returningHistoryCached)),
    },
    wallSeconds: (performance.now() - started) / 1000,
  };
}

/**
 * Section 4's search: the stock engine plays each workload's first pass under each (c, m), a fresh engine a point,
 * `concurrency` points at once; every point's cache statistics come back in the order the points were given.
 */
export async function runThinkSearch(options: ThinkSearchOptions): Promise<ThinkPointResult[]> {
  const results: ThinkPointResult[] = new Array(options.points.length);
  let next = 0;
  const worker = async () => {
    while (next < options.points.length) {
      const i = next++;
      results[i] = await playPoint(options.points[i]!, options);
      options.onPoint?.(results[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.points.length) }, worker));
  return results;
}

/**
 * The point nearest the data card's targets: the smallest of the larger of its two misses (token-weighted, per
 * request); null when no point measured both.
 */
export function nearestPoint(
  results: readonly ThinkPointResult[],
  targets: { tokenWeighted: number; perRequest: number },
): { point: ThinkPointResult; miss: number } | null {
  let best: { point: ThinkPointResult; miss: number } | null = null;
  for (const r of results) {
    const { tokenWeighted, perRequest } = r.overall;
    if (tokenWeighted === null || perRequest === null) continue;
    const miss = Math.max(Math.abs(tokenWeighted - targets.tokenWeighted), Math.abs(perRequest - targets.perRequest));
    if (!best || miss < best.miss) best = { point: r, miss };
  }
  return best;
}

/** The grid of every `c` with every `m`, in that order. */
export function thinkGrid(scales: readonly number[], interleaves: readonly number[]): ThinkPoint[] {
  return scales.flatMap((scale) => interleaves.map((interleave) => ({ scale, interleave })));
}
