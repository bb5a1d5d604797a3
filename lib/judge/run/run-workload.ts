import type { Dispatcher } from "undici";
import { getProfile, getTask, type Profile, type TaskId, type WorkloadId } from "@/lib/protocol";
import { createJudgeAgent } from "../client/http-agent";
import type { OnEvent } from "../events";
import type { Pool } from "../pool/schema";
import { type EvaluationPlan, planEvaluation } from "../sessions/plan";
import type { TokenCounter } from "../tokens/token-counter";
import { type PassResult, runPass } from "./run-pass";

export interface WorkloadOptions {
  url: string;
  servedName: string;
  task: TaskId;
  workload: WorkloadId;
  /** A profile name (`full`, `smoke`, `ci`) or the profile itself. */
  profile: string | Profile;
  pool: Pool;
  evaluationSeed: string;
  onEvent?: OnEvent;
  thinkScale?: number;
  /** Shared across calls to keep sockets warm; made (and closed) per call when absent. */
  dispatcher?: Dispatcher;
  /** Counts with the target's tokenizer (`createTokenCounter(targetDir)`); the caller owns it. */
  counter: TokenCounter;
  /** The plan, when the caller made it already (it is a pure function of pool, seed, task and profile). */
  plan?: EvaluationPlan;
}

export interface WorkloadResult {
  workload: WorkloadId;
  task: TaskId;
  profile: string;
  evaluationSeed: string;
  url: string;
  warmup: PassResult;
  passes: PassResult[];
}

export function resolveProfile(profile: string | Profile): Profile {
  if (typeof profile !== "string") return profile;
  const p = getProfile(profile);
  if (!p) throw new Error(`unknown profile "${profile}" (known: full, smoke, ci)`);
  return p;
}

export function planFor(
  options: Pick<WorkloadOptions, "pool" | "evaluationSeed" | "task" | "profile">,
): EvaluationPlan {
  return planEvaluation(options.pool, {
    seed: options.evaluationSeed,
    task: getTask(options.task),
    profile: resolveProfile(options.profile),
  });
}

async function withResources<T>(
  options: Pick<WorkloadOptions, "dispatcher" | "counter">,
  body: (dispatcher: Dispatcher, counter: TokenCounter) => Promise<T>,
): Promise<T> {
  const dispatcher = options.dispatcher ?? createJudgeAgent();
  try {
    return await body(dispatcher, options.counter);
  } finally {
    if (!options.dispatcher) await dispatcher.close();
  }
}

/**
 * Plays one pass of a workload (0-based), or its warm-up: the entry point a caller uses to play the candidate's
 * pass and then the stock engine's. The same (pool, seed, task, profile) always gives the same sessions, seeds, order.
 */
export async function runWorkloadPass(options: WorkloadOptions, pass: number | "warmup"): Promise<PassResult> {
  const plan = options.plan ?? planFor(options);
  const w = plan.workloads[options.workload];
  const passPlan = pass === "warmup" ? w.warmup : w.passes[pass];
  if (!passPlan) throw new Error(`workload ${options.workload} has no pass ${pass} under this profile`);
  return withResources(options, (dispatcher, counter) =>
    runPass(passPlan, { ...options, profile: resolveProfile(options.profile), dispatcher, counter }),
  );
}

/** Plays a whole workload: its warm-up wave, then every pass in order. */
export async function runWorkload(options: WorkloadOptions): Promise<WorkloadResult> {
  const profile = resolveProfile(options.profile);
  const plan = options.plan ?? planFor(options);
  return withResources(options, async (dispatcher, counter) => {
    const shared = { ...options, profile, plan, dispatcher, counter };
    const w = plan.workloads[options.workload];
    const warmup = await runPass(w.warmup, { ...shared });
    const passes: PassResult[] = [];
    for (const p of w.passes) passes.push(await runPass(p, { ...shared }));
    return {
      workload: options.workload,
      task: options.task,
      profile: profile.name,
      evaluationSeed: options.evaluationSeed,
      url: options.url,
      warmup,
      passes,
    };
  });
}
