import { GATE_CHECKS } from "../gates/record/reasons";
import type { GateKey } from "../gates/record/schema";

/**
 * The gates an honest engine fails now and then by chance: the sampled checks, each a 95% test of two engines'
 * samples (protocol section 6). At a test profile's 64 sampled replies an honest engine's evaluation fails one of them
 * about once in 50 (the first-choice share: a difference past its 0.003 bound and 1.96 standard errors of ±0.007).
 */
export const CHANCE_GATES: readonly GateKey[] = ["likelihood", "argmax"];

/** What an evaluation of an honest engine is judged on. */
export interface HonestRun {
  status: string;
  specscore: number | null;
  /** The gates it failed: their keys (a record's), or their checks' names (as the database keeps them). */
  failedGates: readonly string[];
}

/** Whether a run was scored and failed only gates an honest engine fails by chance. */
export function failedByChance(run: HonestRun): boolean {
  return (
    run.status === "scored" &&
    run.failedGates.length > 0 &&
    run.failedGates.every((g) => CHANCE_GATES.some((key) => g === key || g === GATE_CHECKS[key]))
  );
}

/**
 * Runs an honest engine's whole evaluation, and once more when it failed only the sampled checks: failing them twice
 * is no longer chance (as the red-team matrix replays an honest row). `first` is the first run, whatever it scored;
 * `last` is the one to judge; `history` says what the first failed when there were two.
 */
export async function judgedHonestly<T extends HonestRun>(
  run: () => Promise<T>,
  log: (line: string) => void = console.log,
): Promise<{ first: T; last: T; history: string }> {
  const first = await run();
  if (!failedByChance(first)) return { first, last: first, history: "" };
  const history = `the first run failed [${first.failedGates.join(", ")}], as an honest engine does about once in 50`;
  log(`${history}: played once more`);
  return { first, last: await run(), history: ` (${history})` };
}
