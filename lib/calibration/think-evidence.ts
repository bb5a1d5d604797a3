import { readFile } from "node:fs/promises";
import { z } from "zod";
import { getProfile, WORKLOAD_IDS, type WorkloadId } from "../protocol";
import type { ThinkSearchCalibration } from "../protocol/calibration-schema";

const statistics = z.object({
  tokenWeighted: z.number().nullable(),
  perRequest: z.number().nullable(),
  returning: z.number().int(),
  returningHistoryCached: z.number().nullable(),
  requests: z.number().int(),
  allBusySeconds: z.number().nullable().optional(),
});

/** What `npm run calibrate:think -- --out FILE` writes (think-search-cli.ts). */
export const thinkSearchFileSchema = z.object({
  kind: z.literal("speculatorarena.think-search"),
  task: z.string(),
  profile: z.string(),
  seed: z.string(),
  sim_speed: z.number().positive(),
  cores: z.number().int().positive().nullable().optional(),
  cap_seconds: z.number(),
  targets: z.object({ token_weighted: z.number(), per_request: z.number() }),
  points: z.array(
    z.object({
      scale: z.number().positive(),
      interleave: z.number().int().positive(),
      workloads: z.partialRecord(z.enum(WORKLOAD_IDS), statistics),
    }),
  ),
});
export type ThinkSearchFile = z.infer<typeof thinkSearchFileSchema>;

export async function readThinkSearchFile(path: string): Promise<ThinkSearchFile> {
  const parsed = thinkSearchFileSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
  if (!parsed.success)
    throw new Error(`${path}: not a think-search file: ${parsed.error.issues.map((i) => i.path.join(".")).join(", ")}`);
  return parsed.data;
}

const passSeconds = (profile: string, workload: WorkloadId): number | undefined =>
  getProfile(profile)?.passSeconds[workload];

/**
 * One or more searches of the same task and profile (say, team's and busy's run side by side) as the calibration
 * report's evidence: every (workload, c, m) point, a later file's replacing an earlier one's, and the point whose
 * mean hit over the workloads searched at it misses the targets least.
 */
export function thinkSearchEvidence(files: readonly ThinkSearchFile[]): ThinkSearchCalibration {
  const first = files[0];
  if (!first) throw new Error("no search to read");
  for (const f of files) {
    if (f.task !== first.task || f.profile !== first.profile)
      throw new Error(`searches of ${first.task} under ${first.profile} only: one is of ${f.task} under ${f.profile}`);
  }
  const points = new Map<string, ThinkSearchCalibration["points"][number]>();
  for (const f of files) {
    for (const p of f.points) {
      for (const w of WORKLOAD_IDS) {
        const s = p.workloads[w];
        if (!s) continue;
        points.set(`${w}|${p.scale}|${p.interleave}`, {
          workload: w,
          scale: p.scale,
          interleave: p.interleave,
          token_weighted: s.tokenWeighted,
          per_request: s.perRequest,
          requests: s.requests,
          returning: s.returning,
          returning_history_cached: s.returningHistoryCached,
          all_busy_seconds: s.allBusySeconds ?? null,
          pass_seconds: passSeconds(f.profile, w),
        });
      }
    }
  }
  const all = [...points.values()].sort(
    (a, b) =>
      WORKLOAD_IDS.indexOf(a.workload) - WORKLOAD_IDS.indexOf(b.workload) ||
      a.scale - b.scale ||
      a.interleave - b.interleave,
  );
  const targets = first.targets;
  let nearest: ThinkSearchCalibration["nearest"] = null;
  for (const key of new Set(all.map((p) => `${p.scale}|${p.interleave}`))) {
    const at = all.filter((p) => `${p.scale}|${p.interleave}` === key);
    const tw = at.map((p) => p.token_weighted);
    const pr = at.map((p) => p.per_request);
    if (tw.some((x) => x === null) || pr.some((x) => x === null)) continue;
    const mean = (xs: (number | null)[]) => (xs as number[]).reduce((a, b) => a + b, 0) / xs.length;
    const miss = Math.max(Math.abs(mean(tw) - targets.token_weighted), Math.abs(mean(pr) - targets.per_request));
    if (!nearest || miss < nearest.miss) nearest = { scale: at[0]!.scale, interleave: at[0]!.interleave, miss };
  }
  const seeds = [...new Set(files.map((f) => f.seed))];
  const cores = [...new Set(files.map((f) => f.cores ?? null))];
  return {
    source:
      "npm run calibrate:think: each point a fresh simulated stock engine playing the workload's first timed pass after its warm-up wave, under the full profile's pass length",
    profile: first.profile,
    seed: seeds.join(", "),
    sim_speed: first.sim_speed,
    cores: cores.length === 1 ? cores[0]! : null,
    cap_seconds: first.cap_seconds,
    targets,
    points: all,
    nearest,
  };
}
