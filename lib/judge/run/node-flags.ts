/**
 * V8 heap settings for a Node process that runs the judge's lanes (the pod agent, and the fidelity benchmark as it
 * plays the judge). Young-generation collections copy the replies in flight, and major collections come with the
 * heap's growth: on a quiet H200 host with 100 streams at 150 tokens/s on one pinned core, Node's defaults let 60
 * pauses (several major ones of 3–4 ms) make chunks late (p99 0.74 ms, max 5.4 ms); with a 32 MiB semi-space and an
 * old space that starts at 512 MiB (the pass's collection before its clock starts leaves it nearly empty), 23
 * pauses, none major (p99 0.36 ms, max 3.7 ms). Every launcher of the agent passes these.
 */
export const JUDGE_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=32", "--initial-old-space-size=512"];

/** Whether this process already runs with them. */
export function hasJudgeNodeFlags(execArgv: readonly string[]): boolean {
  return JUDGE_NODE_FLAGS.every((f) => execArgv.includes(f));
}
