/**
 * `npm run calibrate:think`: section 4's search over `c` (the think-time scale) and `m` (live sessions a lane) on the
 * simulated stock engine, each point's cache statistics printed beside the data card's targets and written as JSON.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { z } from "zod";
import { workloadCard } from "../judge/card/workload-card";
import { createJudgeAgent } from "../judge/client/http-agent";
import { loadPool } from "../judge/pool/load";
import { DEV_POOL_PATH } from "../judge/pool/paths";
import { createTokenCounter } from "../judge/tokens/token-counter";
import { currentProtocol, getProfile, getTask, isTaskId, type TaskId, WORKLOAD_IDS } from "../protocol";
import { calibrationReportSchema } from "../protocol/calibration-schema";
import { qwen3TokenizerDir } from "../tokenizer/packaged-qwen3";
import { ANSWERED_BY_SEARCH } from "./build-report";
import { flagPairs } from "./flag-pairs";
import { formatThinkSearch } from "./format-think-search";
import { formatReportFile, readCalibrationReport } from "./report-file";
import { startSimStock } from "./sim-stock";
import {
  readThinkSearchFile,
  type ThinkSearchFile,
  thinkSearchEvidence,
  thinkSearchFileSchema,
} from "./think-evidence";
import { nearestPoint, runThinkSearch, thinkGrid } from "./think-search";

const USAGE = [
  "usage: npm run calibrate:think -- --task qwen3-8b [--profile full] [--c 0.25,0.5,1] [--m 2,3] [--workloads team,busy] [--concurrency 4] [--sim-speed 1] [--seed S] [--out FILE] [--into REPORT]",
  "       npm run calibrate:think -- --from SEARCH.json[,SEARCH.json] --into REPORT   (saved searches into a calibration report)",
].join("\n");

const numbers = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s) => s.split(",").map(Number))
    .refine((xs) => xs.length > 0 && xs.every((x) => Number.isFinite(x) && x > 0), `${name}: positive numbers, a,b,c`);

const argsSchema = z
  .object({
    task: z.string().refine(isTaskId, "unknown task"),
    profile: z
      .string()
      .refine((p) => getProfile(p) !== undefined, "unknown profile (full, smoke, ci)")
      .default("full"),
    c: numbers("--c", "0.25"),
    m: numbers("--m", "2").refine((xs) => xs.every(Number.isInteger), "--m: whole numbers"),
    workloads: z
      .string()
      .default("team,busy")
      .transform((s) => s.split(","))
      .pipe(z.array(z.enum(WORKLOAD_IDS))),
    concurrency: z.coerce.number().int().min(1).max(32).default(4),
    "sim-speed": z.coerce.number().positive().default(1),
    seed: z.string().min(1).optional(),
    out: z.string().min(1).optional(),
    into: z.string().min(1).optional(),
  })
  .strict();
const fromSchema = z.object({ from: z.string().min(1), into: z.string().min(1) }).strict();

/** Puts the searches into a calibration report as its `think_search`, validated as the protocol loads it. */
async function intoReport(files: readonly ThinkSearchFile[], report: string): Promise<void> {
  const before = await readCalibrationReport(report);
  const merged = calibrationReportSchema.parse({
    ...before,
    think_search: thinkSearchEvidence(files),
    not_measured: before.not_measured.filter((line) => !ANSWERED_BY_SEARCH.some((p) => line.startsWith(p))),
  });
  await writeFile(report, `${JSON.stringify(merged, null, 2)}\n`);
  await formatReportFile(report);
  console.error(`the search is in ${report}`);
}

async function main(argv: readonly string[]): Promise<void> {
  const raw = flagPairs(argv, USAGE);
  if ("from" in raw) {
    const given = fromSchema.safeParse(raw);
    if (!given.success) throw new Error(`--from takes --into only\n${USAGE}`);
    const files = await Promise.all(given.data.from.split(",").map(readThinkSearchFile));
    await intoReport(files, given.data.into);
    return;
  }
  const parsed = argsSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(`${parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; ")}\n${USAGE}`);
  const args = parsed.data;
  const task = getTask(args.task as TaskId);
  const profile = getProfile(args.profile)!;
  const seed = args.seed ?? randomBytes(8).toString("hex");
  const points = thinkGrid(args.c, args.m);
  const targets = workloadCard().targets;
  const startStock = () => startSimStock(task.id, profile.name, args["sim-speed"]);
  console.error(
    `searching ${points.length} point(s) of (c, m) on ${task.id} under ${profile.name}: ${args.workloads.join(", ")}, ${args.concurrency} at once, SIM_SPEED ${args["sim-speed"]}, seed ${seed}`,
  );
  const counter = await createTokenCounter(qwen3TokenizerDir());
  const dispatcher = createJudgeAgent();
  const started = Date.now();
  try {
    const results = await runThinkSearch({
      task: task.id,
      profile: profile.name,
      points,
      workloads: args.workloads,
      concurrency: args.concurrency,
      seed,
      pool: loadPool(DEV_POOL_PATH),
      counter,
      dispatcher,
      startStock,
      onPoint: (r) =>
        console.error(
          `c ${r.scale}, m ${r.interleave}: token-weighted ${r.overall.tokenWeighted?.toFixed(3)}, per request ${r.overall.perRequest?.toFixed(3)} (${r.wallSeconds.toFixed(0)} s)`,
        ),
    });
    const tw = targets.chatPrefixReuseTokenWeighted;
    const pr = targets.chatPrefixReusePerRequest;
    const nearest = nearestPoint(results, { tokenWeighted: tw, perRequest: pr });
    console.log(formatThinkSearch(results, { tokenWeighted: tw, perRequest: pr }, nearest));
    const report = {
      kind: "speculatorarena.think-search",
      task: task.id,
      profile: profile.name,
      seed,
      sim_speed: args["sim-speed"],
      cores: cpus().length,
      concurrency: args.concurrency,
      workloads: args.workloads,
      cap_seconds: currentProtocol().thinkTime.capSeconds,
      targets: { token_weighted: tw, per_request: pr },
      wall_seconds: (Date.now() - started) / 1000,
      points: results,
      nearest: nearest
        ? { scale: nearest.point.scale, interleave: nearest.point.interleave, miss: nearest.miss }
        : null,
    };
    if (args.out) await writeFile(args.out, `${JSON.stringify(report, null, 2)}\n`);
    if (args.into) await intoReport([thinkSearchFileSchema.parse(JSON.parse(JSON.stringify(report)))], args.into);
  } finally {
    await counter.close();
    await dispatcher.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
