import { z } from "zod";
import { flagPairs } from "@/lib/calibration/flag-pairs";
import { getProfile, isTaskId, type Profile, type TaskId } from "@/lib/protocol";
import { strengthsProblem } from "@/lib/sim-engine";
import { ATTACK_FAMILIES, type AttackFamily, familySpec } from "./gate-power-families";

export const USAGE = [
  "usage: npx tsx lib/gates/bench/gate-power.ts [--task qwen3-8b] [--profile full] [--families temperature,top-k,quantization,honest]",
  "         [--temperature 0.8,0.9,0.95,1.05,1.1] [--top-k 5,10,15] [--quantization 0.01,0.02,0.05,0.25,0.5,1]",
  "         [--pool N | --pool-multiple 4] [--text-pool M] [--max-tokens 512] [--resamples 1000] [--seed 1] [--sim-speed 1000]",
  "         [--out FILE] [--into REPORT]",
  "       npx tsx lib/gates/bench/gate-power.ts --from RUN.json[,RUN.json] [--into REPORT]   (runs side by side: their table, and into a calibration report)",
].join("\n");

const FAMILIES = [...ATTACK_FAMILIES, "honest"] as const;
type Family = (typeof FAMILIES)[number];

const count = (flag: string) => z.coerce.number({ error: `${flag}: a whole number` }).int(`${flag}: a whole number`);
const list = (flag: string) =>
  z
    .string()
    .transform((s) => s.split(",").map((x) => x.trim()))
    .pipe(
      z.array(
        z
          .string()
          .min(1, `${flag}: values a,b,c`)
          .pipe(z.coerce.number({ error: `${flag}: numbers a,b,c` })),
      ),
    );

const argsSchema = z
  .object({
    task: z.string().refine(isTaskId, "--task: unknown task").default("qwen3-8b"),
    profile: z
      .string()
      .refine((p) => getProfile(p) !== undefined, "--profile: unknown profile (full, smoke, ci, redteam)")
      .default("full"),
    families: z
      .string()
      .default(FAMILIES.join(","))
      .transform((s) => s.split(","))
      .pipe(z.array(z.enum(FAMILIES, { error: `--families: of ${FAMILIES.join(", ")}` })).min(1)),
    temperature: list("--temperature").optional(),
    "top-k": list("--top-k").optional(),
    quantization: list("--quantization").optional(),
    /** Replies per pool; by default `pool-multiple` × the profile's sampled replies. */
    // a pool's replies take seeds seed × 100,000 + i (lib/gates/testing/audit-modes.ts): the stock pool's and the
    // candidates' (seed + 1) must not meet
    pool: count("--pool").min(1, "--pool: at least 1").max(99_999, "--pool: at most 99999").optional(),
    "pool-multiple": count("--pool-multiple").min(1, "--pool-multiple: at least 1").default(4),
    /** Fixed texts and greedy probes per engine; by default `pool-multiple` × the profile's. */
    "text-pool": count("--text-pool").min(1, "--text-pool: at least 1").optional(),
    "max-tokens": count("--max-tokens").min(1, "--max-tokens: at least 1").default(512),
    resamples: count("--resamples").min(1, "--resamples: at least 1").default(1000),
    seed: count("--seed").min(0, "--seed: 0 or more").max(20_000, "--seed: at most 20000").default(1),
    "sim-speed": z.coerce.number({ error: "--sim-speed: a number" }).positive("--sim-speed: positive").default(1000),
    out: z.string().min(1).optional(),
    into: z.string().min(1).optional(),
  })
  .strict();

export interface PowerRun {
  task: TaskId;
  profile: Profile;
  /** The attack families to sweep, each with its strengths, in order. */
  sweeps: { family: AttackFamily; strengths: number[] }[];
  honest: boolean;
  replyPool: number;
  textPool: number;
  probePool: number;
  maxTokens: number;
  resamples: number;
  seed: number;
  simSpeed: number;
  out?: string;
  into?: string;
}

export type PowerCommand = { kind: "run"; run: PowerRun } | { kind: "merge"; from: string[]; into?: string };

/** A strength the simulated engine refuses, or the honest value (which `--families honest` measures): named by its flag. */
function strengthProblem(family: AttackFamily, strength: number): string | null {
  const spec = familySpec(family);
  if (strength === spec.honest) return `--${family}: ${strength} is the honest engine (--families honest measures it)`;
  // the engine's own check, so the benchmark refuses what `sim-engine serve` would (its message names the serve flag)
  const problem = strengthsProblem(spec.options(strength));
  return problem ? `--${family} ${strength}: ${problem}` : null;
}

/** The command line as a run or a merge; throws an Error naming what is wrong, with the usage. */
export function parsePowerArgs(argv: readonly string[]): PowerCommand {
  const raw = flagPairs(argv, USAGE);
  if ("from" in raw) {
    const { from, into, ...rest } = raw;
    if (Object.keys(rest).length > 0) throw new Error(`--from takes --into only\n${USAGE}`);
    return { kind: "merge", from: from!.split(","), ...(into ? { into } : {}) };
  }
  const parsed = argsSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `${parsed.error.issues.map((i) => (i.code === "unrecognized_keys" ? `unknown flag ${i.keys.map((k) => `--${k}`).join(", ")}` : i.message)).join("; ")}\n${USAGE}`,
    );
  const a = parsed.data;
  const profile = getProfile(a.profile)!;
  const chosen = new Set<Family>(a.families);
  for (const family of ATTACK_FAMILIES) {
    if (a[family] && !chosen.has(family)) throw new Error(`--${family} given, but --families leaves ${family} out`);
  }
  const sweeps = ATTACK_FAMILIES.filter((f) => chosen.has(f)).map((family) => ({
    family,
    strengths: [...new Set(a[family] ?? familySpec(family).defaults)],
  }));
  for (const { family, strengths } of sweeps) {
    for (const s of strengths) {
      const problem = strengthProblem(family, s);
      if (problem) throw new Error(`${problem}\n${USAGE}`);
    }
  }
  const multiple = a["pool-multiple"];
  const replyPool = a.pool ?? multiple * profile.likelihoodReplies;
  if (replyPool > 99_999) throw new Error(`--pool-multiple: ${replyPool} replies a pool, more than 99999\n${USAGE}`);
  return {
    kind: "run",
    run: {
      task: a.task as TaskId,
      profile,
      sweeps,
      honest: chosen.has("honest"),
      replyPool,
      textPool: a["text-pool"] ?? multiple * profile.fidelityTexts,
      probePool: a["text-pool"] ?? multiple * profile.greedyProbes,
      maxTokens: a["max-tokens"],
      resamples: a.resamples,
      seed: a.seed,
      simSpeed: a["sim-speed"],
      out: a.out,
      into: a.into,
    },
  };
}
