import { appendFile, readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { resultRecordSchema } from "../gates/record/schema";
import { calibrationRunSchema } from "../protocol/calibration-schema";
import type { FinishedPod } from "./build-report";

const headerSchema = z.object({
  kind: z.literal("speculatorarena.calibration-pods"),
  task: z.enum(["qwen3-8b", "qwen35-27b"]),
  profile: z.string().min(1),
  aa: z.number().int().positive(),
  sim_speed: z.number().positive(),
  concurrency: z.number().int().positive(),
  started_at: z.string().datetime(),
});
export type PodsLogHeader = z.infer<typeof headerSchema>;

const lineSchema = z.object({
  group: z.enum(["aa", "reference"]),
  pod: calibrationRunSchema
    .pick({ key: true, label: true, mode: true, seed: true, outcome: true, reason: true })
    .extend({
      record: resultRecordSchema.nullable(),
      wallSeconds: z.number().nonnegative(),
      warnings: z.array(z.string()).optional(),
    }),
  finished_at: z.string().datetime(),
});

/**
 * A calibration's pods as each comes back, one JSON line apiece after a header: an hours-long run keeps what it
 * measured when it is stopped, and its report can be rebuilt (`--rebuild`) when the report's reduction changes.
 */
export async function startPodsLog(path: string, header: PodsLogHeader): Promise<void> {
  await writeFile(path, `${JSON.stringify(headerSchema.parse(header))}\n`);
}

export async function appendPod(path: string, finished: FinishedPod, at: Date): Promise<void> {
  await appendFile(path, `${JSON.stringify({ ...finished, finished_at: at.toISOString() })}\n`);
}

export async function readPodsLog(
  path: string,
): Promise<{ header: PodsLogHeader; pods: FinishedPod[]; lastFinishedAt: Date | null }> {
  const lines = (await readFile(path, "utf8")).split("\n").filter((l) => l.trim() !== "");
  if (lines.length === 0) throw new Error(`${path}: empty pods log`);
  const parse = (line: string, n: number) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      throw new Error(`${path}:${n + 1}: not JSON`);
    }
  };
  const header = headerSchema.safeParse(parse(lines[0]!, 0));
  if (!header.success)
    throw new Error(`${path}:1: not a calibration pods log header (${header.error.issues[0]?.message})`);
  const pods: FinishedPod[] = [];
  let last: Date | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lineSchema.safeParse(parse(lines[i]!, i));
    if (!line.success) {
      const issue = line.error.issues[0];
      throw new Error(`${path}:${i + 1}: ${issue?.path.join(".")}: ${issue?.message}`);
    }
    pods.push({ group: line.data.group, pod: line.data.pod as FinishedPod["pod"] });
    last = new Date(line.data.finished_at);
  }
  return { header: header.data, pods, lastFinishedAt: last };
}

/**
 * Several pods logs of one calibration read as one (its A/A pods and its references run apart, `--only`): the same
 * task, profile, SIM_SPEED and A/A count, the A/A pods first; its wall time is the logs' own times added up, and it
 * ran as many pods at once as the widest of them.
 */
export async function readPodsLogs(
  paths: readonly string[],
): Promise<{ header: PodsLogHeader; pods: FinishedPod[]; lastFinishedAt: Date | null; wallSeconds: number }> {
  if (paths.length === 0) throw new Error("no pods log given");
  const logs = await Promise.all(paths.map(readPodsLog));
  const first = logs[0]!.header;
  for (const [i, log] of logs.entries()) {
    for (const key of ["task", "profile", "sim_speed", "aa"] as const)
      if (log.header[key] !== first[key])
        throw new Error(`${paths[i]}: its ${key} is ${log.header[key]}, not ${first[key]} as in ${paths[0]}`);
  }
  const pods = logs.flatMap((l) => l.pods);
  const finished = logs.flatMap((l) => (l.lastFinishedAt ? [l.lastFinishedAt] : []));
  return {
    header: { ...first, concurrency: Math.max(...logs.map((l) => l.header.concurrency)) },
    pods: [...pods.filter((p) => p.group === "aa"), ...pods.filter((p) => p.group === "reference")],
    lastFinishedAt: finished.length ? new Date(Math.max(...finished.map((d) => d.getTime()))) : null,
    wallSeconds: logs.reduce(
      (sum, l) =>
        sum + (l.lastFinishedAt ? (l.lastFinishedAt.getTime() - new Date(l.header.started_at).getTime()) / 1000 : 0),
      0,
    ),
  };
}
