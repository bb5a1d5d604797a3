import { currentProtocol, lanesFor, type Profile, type TaskSpec, WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";
import { workloadCard } from "../card/workload-card";
import type { Pool, Session } from "../pool/schema";
import { hash32, hexTag, rng, shuffled } from "../rng";

/** One pass's sessions: a queue per lane (its first `m` are live at the start, the rest replace finished ones). */
export interface PassPlan {
  workload: WorkloadId;
  /** 0-based pass index, or "warmup". */
  pass: number | "warmup";
  lanes: number;
  interleave: number;
  /** Prepended to every app's system prompt in this pass: it changes the shared prefixes and nothing else. */
  salt: string;
  queues: Session[][];
}

export interface EvaluationPlan {
  seed: string;
  workloads: Record<WorkloadId, { warmup: PassPlan; passes: PassPlan[] }>;
}

/** The most sessions a lane's queue holds in one pass: far more than a lane finishes in a full pass of chat turns. */
export const MAX_QUEUE = 48;

export function requestSeed(evaluationSeed: string, sessionId: string, turn: number): number {
  return hash32(evaluationSeed, "request", sessionId, turn) & 0x7fffffff;
}

export function passSalt(evaluationSeed: string, workload: WorkloadId, pass: number | "warmup"): string {
  return hexTag(evaluationSeed, "salt", workload, pass);
}

/** The salted system prompt: the salt leads, so every token of the shared prefix differs from another pass's. */
export function saltedSystemPrompt(systemPrompt: string, salt: string): string {
  return `[session ${salt}]\n${systemPrompt}`;
}

/**
 * Deals the pool's sessions to every workload's warm-up and passes, deterministically from the seed, so that the
 * stock engine replays the candidate's exact sessions in the same order; no session is dealt twice, so none serves
 * twice and the warm-up's sessions are ones no pass sends. Lane slots alternate families by the card's mix; a family
 * that runs out lends its slots to the other.
 */
export function planEvaluation(
  pool: Pool,
  options: { seed: string; task: TaskSpec; profile: Profile; agentShare?: number },
): EvaluationPlan {
  const { seed, task, profile } = options;
  const protocol = currentProtocol();
  const agentShare = options.agentShare ?? workloadCard().mix.agentShare;
  const byFamily = {
    agent: shuffled(
      pool.sessions.filter((s) => s.family === "agent"),
      rng(hash32(seed, "order", "agent")),
    ),
    chat: shuffled(
      pool.sessions.filter((s) => s.family === "chat"),
      rng(hash32(seed, "order", "chat")),
    ),
  };
  const next = { agent: 0, chat: 0 };
  const total = pool.sessions.length;
  let dealt = 0;
  const take = (preferAgent: boolean): Session | null => {
    const order = preferAgent ? (["agent", "chat"] as const) : (["chat", "agent"] as const);
    for (const f of order) {
      if (next[f] < byFamily[f].length) {
        dealt++;
        return byFamily[f][next[f]++]!;
      }
    }
    return null;
  };

  const lanes = Object.fromEntries(WORKLOAD_IDS.map((w) => [w, lanesFor(task, w, profile)])) as Record<
    WorkloadId,
    number
  >;
  const warmupNeed = WORKLOAD_IDS.reduce((a, w) => a + lanes[w], 0);
  const laneQueues = WORKLOAD_IDS.reduce((a, w) => a + lanes[w] * profile.passes, 0);
  const depth = Math.min(MAX_QUEUE, Math.floor((total - warmupNeed) / laneQueues));
  const minDepth = Math.max(...WORKLOAD_IDS.map((w) => protocol.workloads[w].interleave));
  if (depth < minDepth) {
    throw new Error(
      `the pool's ${total} sessions cannot fill ${laneQueues} lane queues of ${minDepth} plus ${warmupNeed} warm-up sessions`,
    );
  }

  const emptyPlan = (workload: WorkloadId, pass: number | "warmup"): PassPlan => ({
    workload,
    pass,
    lanes: lanes[workload],
    interleave: protocol.workloads[workload].interleave,
    salt: passSalt(seed, workload, pass),
    queues: Array.from({ length: lanes[workload] }, () => []),
  });
  const workloads = {} as EvaluationPlan["workloads"];
  for (const w of WORKLOAD_IDS) {
    workloads[w] = {
      warmup: emptyPlan(w, "warmup"),
      passes: Array.from({ length: profile.passes }, (_, p) => emptyPlan(w, p)),
    };
  }
  const fill = (plan: PassPlan, slot: number) => {
    plan.queues.forEach((q, lane) => {
      const u = hash32(seed, "family", plan.workload, plan.pass, lane, slot) / 4294967296;
      const s = take(u < agentShare);
      if (s) q.push(s);
    });
  };
  // slot by slot across every pass, so a family that runs out thins the deepest replacements of every pass alike,
  // never one workload's live sessions
  for (const w of WORKLOAD_IDS) fill(workloads[w].warmup, 0);
  for (let slot = 0; slot < depth; slot++) {
    for (const w of WORKLOAD_IDS) for (const p of workloads[w].passes) fill(p, slot);
  }
  if (dealt > total) throw new Error("internal: dealt more sessions than the pool holds");
  return { seed, workloads };
}
