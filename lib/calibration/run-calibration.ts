import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { referenceEngine } from "../pods/reference-engines/reference-engines";
import { getProfile, getProtocol, type Protocol, type TaskId } from "../protocol";
import type { CalibrationReport } from "../protocol/calibration-schema";
import type { RedTeamEnv } from "../red-team/env";
import { type PodRun, type PodRunOptions, runPodFor } from "../red-team/pod-run";
import { defaultSeeds } from "../red-team/run-matrix";
import { calibrationReportFrom } from "./build-report";
import { AA_LABEL, type CalibrationPod } from "./pod-outcome";

export interface CalibrationOptions {
  task: TaskId;
  profile: string;
  /** A/A evaluations: the stock engine submitted as the candidate. */
  aa: number;
  /** Also run every simulated reference of the task (section 11) but the stock engine. */
  references: boolean;
  protocol: Protocol;
  /** SIM_SPEED of both engines; 1 is the arena's own (lib/env.ts). */
  simSpeed: number;
  /** Pods at once; 1 keeps the machine's cores to one pod's engines, as the arena's pods have theirs. */
  concurrency: number;
  env: RedTeamEnv;
  /** Where the report is written (validated first); none: only returned. */
  out?: string;
  signal?: AbortSignal;
  onPod?: (pod: CalibrationPod, group: "aa" | "reference", done: number, total: number) => void;
  /** Only this group's pods, each with the seed the whole calibration gives it (their report merged later). */
  only?: "aa" | "reference";
  /** How one pod is run: by default a separate pod agent (runPodFor); tests give their own. */
  runPod?: (options: PodRunOptions) => Promise<PodRun>;
}

interface Job {
  group: "aa" | "reference";
  key: string;
  label: string;
  mode: string;
}

/** The pods a calibration runs: N A/A runs, then each reference the simulated runtime plays. */
export function calibrationJobs(protocol: Protocol, task: TaskId, aa: number, references: boolean): Job[] {
  const spec = protocol.tasks[task];
  const jobs: Job[] = Array.from({ length: aa }, () => ({
    group: "aa",
    key: "stock",
    label: AA_LABEL,
    mode: "stock",
  }));
  if (references) {
    for (const ref of spec.references) {
      if (ref.key === "stock") continue;
      const engine = referenceEngine("sim", ref);
      if (!engine.ok) throw new Error(`reference ${ref.key}: ${engine.why}`);
      jobs.push({ group: "reference", key: ref.key, label: ref.label, mode: basename(engine.engineDir) });
    }
  }
  return jobs;
}

/**
 * Section 10's calibration on the simulated runtime: each job as one whole evaluation pod (the pod agent's timed
 * passes, the stock engine on the same passes, the checks and the judge, as the worker runs it) with a seed of its
 * own, then the report built from their records and, with `out`, written there.
 */
export async function runCalibration(options: CalibrationOptions): Promise<CalibrationReport> {
  const { protocol, task } = options;
  if (!getProtocol(protocol.version)) throw new Error(`unknown protocol version ${protocol.version}`);
  if (!getProfile(options.profile, protocol)) throw new Error(`unknown profile "${options.profile}"`);
  if (!Number.isInteger(options.aa) || options.aa < 1) throw new Error("--aa must be a positive integer");
  const started = Date.now();
  const jobs = calibrationJobs(protocol, task, options.aa, options.references);
  const seeds = defaultSeeds(jobs.length);
  const runPod = options.runPod ?? runPodFor;
  const done: { job: Job; pod: CalibrationPod; index: number }[] = [];
  async function runGroup(indices: number[]): Promise<void> {
    let next = 0;
    async function worker(): Promise<void> {
      while (next < indices.length && !options.signal?.aborted) {
        const index = indices[next++]!;
        const job = jobs[index]!;
        const run = await runPod({
          mode: job.mode,
          seed: seeds[index]!,
          profile: options.profile,
          task,
          simSpeed: options.simSpeed,
          env: options.env,
          signal: options.signal,
        });
        const pod: CalibrationPod = {
          key: job.key,
          label: job.label,
          mode: job.mode,
          seed: run.seed,
          outcome: run.outcome,
          reason: run.reason,
          record: run.record,
          wallSeconds: run.wallSeconds,
          warnings: run.agentLog.filter((line) => /^(warn|error):/.test(line)),
        };
        done.push({ job, pod, index });
        options.onPod?.(pod, job.group, done.length, jobs.length);
      }
    }
    await Promise.all(Array.from({ length: Math.min(options.concurrency, indices.length) }, worker));
  }
  // The A/A pods run apart from the references' pods, all of one group before any of the next: on shared cores a
  // speculator's candidate (its drafting) takes more CPU than a stock engine, so A/A candidates timed beside it ran
  // slower than the A/A stock engines timed after it (seven pods at once under the full profile: the A/A busy passes'
  // ratios averaged 0.957). Within the A/A group every pod is in the same phase as the others, candidate or stock.
  for (const group of ["aa", "reference"] as const)
    if (!options.only || options.only === group)
      await runGroup(jobs.flatMap((job, index) => (job.group === group ? [index] : [])));
  if (options.signal?.aborted) throw new Error("the calibration was stopped");
  done.sort((a, b) => a.index - b.index);
  const report = calibrationReportFrom({
    protocol,
    task,
    profile: options.profile,
    requestedAa: options.aa,
    pods: done.map((d) => ({ group: d.job.group, pod: d.pod })),
    simSpeed: options.simSpeed,
    concurrency: options.concurrency,
    createdAt: new Date(),
    wallSeconds: (Date.now() - started) / 1000,
  });
  if (options.out) {
    await mkdir(dirname(options.out), { recursive: true });
    await writeFile(options.out, `${JSON.stringify(report, null, 2)}\n`);
  }
  return report;
}
