import type { TaskId } from "../protocol";
import { getProfile } from "../protocol";
import type { RedTeamEnv } from "./env";
import { assembleMatrix, type MatrixResult } from "./matrix";
import { type MatrixMode, matrixModes } from "./modes";
import { type PodRun, runPodFor } from "./pod-run";

export interface MatrixOptions {
  /** The rows, by mode name; default: stock (A/A), ngram, draft, eagle, then the six attacks. */
  modes?: readonly string[];
  profile?: string;
  /** Evaluation seeds: each row runs once per seed. */
  seeds?: readonly string[];
  task?: "qwen3-8b" | "qwen35-27b";
  /** Pods running at once. */
  concurrency?: number;
  simSpeed?: number;
  env: RedTeamEnv;
  signal?: AbortSignal;
  /** Called as each run ends. */
  onRun?: (run: PodRun, done: number, total: number) => void;
}

/** Seeds the matrix uses when none are given: the first n of a fixed list, so a rerun repeats the same runs. */
export function defaultSeeds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String(424_242 + 7_919 * i));
}

/**
 * The red-team matrix: every row's mode, under one profile and each seed, as one whole evaluation pod against
 * the stock engine, at most `concurrency` pods at a time. Gate verdicts do not depend on the pods' pace, so two
 * pods may share a small machine.
 */
export async function runMatrix(options: MatrixOptions): Promise<MatrixResult> {
  const profile = options.profile ?? "redteam";
  if (!getProfile(profile)) throw new Error(`unknown profile "${profile}"`);
  const rows: MatrixMode[] = matrixModes(options.modes);
  const seeds = [...(options.seeds ?? defaultSeeds(1))];
  if (seeds.length === 0) throw new Error("the matrix needs at least one seed");
  const concurrency = options.concurrency ?? 2;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer`);
  const task: TaskId = options.task ?? "qwen3-8b";
  const jobs = seeds.flatMap((seed) => rows.map((row) => ({ mode: row.mode, seed })));
  const runs: PodRun[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < jobs.length && !options.signal?.aborted) {
      const job = jobs[next++]!;
      const run = await runPodFor({
        mode: job.mode,
        seed: job.seed,
        profile,
        task,
        simSpeed: options.simSpeed ?? 20,
        env: options.env,
        signal: options.signal,
      });
      runs.push(run);
      options.onRun?.(run, runs.length, jobs.length);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return assembleMatrix(profile, seeds, rows, runs);
}
