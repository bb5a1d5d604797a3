import { readFile } from "node:fs/promises";
import { z } from "zod";
import { POWER_CHECKS } from "../stats/gate-power";
import { ATTACK_FAMILIES } from "./gate-power-families";

const share = z.number().min(0).max(1);
const count = z.number().int().nonnegative();
const resampling = z.enum(["subsample", "bootstrap"]);

/** Each check's detection rate; a check that does not apply to the attack is absent. */
export const powerRatesSchema = z.partialRecord(z.enum(POWER_CHECKS), share);

const gap = z.object({ gap: z.number(), se: z.number().nonnegative() }).nullable();

/** One engine measured as a candidate: the stock engine itself (the false alarms), or under an attack. */
export const powerMeasurementSchema = z.object({
  pool: z.object({ replies: count, tokens: count, texts: count, probes: count }),
  resampling: z.object({ replies: resampling, texts: resampling.nullable(), probes: resampling.nullable() }),
  rates: powerRatesSchema,
  /** The whole pools' figures, undrawn: how large the attack is as each check measures it. */
  figures: z.object({
    likelihood: gap,
    argmax: gap,
    audit_p: share.nullable(),
    fidelity: z.number().nullable(),
    greedy: share.nullable(),
  }),
  wall_seconds: z.number().nonnegative(),
  cpu_seconds: z.number().nonnegative(),
});
export type PowerMeasurement = z.infer<typeof powerMeasurementSchema>;

/** The stock engine under one attack at one strength. */
export const powerPointSchema = powerMeasurementSchema.extend({
  family: z.enum(ATTACK_FAMILIES),
  strength: z.number(),
});
export type PowerPoint = z.infer<typeof powerPointSchema>;

/** What `gate-power.ts --out FILE` writes: one process's points, for `--from` to merge with others'. */
export const gatePowerFileSchema = z.object({
  kind: z.literal("speculatorarena.gate-power"),
  task: z.string(),
  profile: z.string(),
  seed: z.number().int(),
  sim_speed: z.number().positive(),
  max_tokens: z.number().int().positive(),
  resamples: z.number().int().positive(),
  target: share,
  cores: z.number().int().positive(),
  /** The profile's sizes every draw has: sampled replies per engine, fixed texts, greedy probes. */
  sizes: z.object({ replies: count, texts: count, probes: count }),
  limits: z.object({
    z: z.number(),
    likelihood_bound: z.number(),
    argmax_bound: z.number(),
    fidelity_ceiling: z.number(),
    greedy_floor: z.number().nullable(),
    audit_alpha: share,
    outside_tolerance: share,
  }),
  /**
   * The stock engine's own pool, the other side of every gap. Sampled from its seed, it is the same in every process
   * of a run: `digest` (its tokens and summed log-probability) lets a merge check that.
   */
  stock: z.object({
    replies: count,
    tokens: count,
    digest: z.string(),
    wall_seconds: z.number().nonnegative(),
    cpu_seconds: z.number().nonnegative(),
  }),
  /** The stock engine as candidate, when this process measured it. */
  honest: powerMeasurementSchema.nullable(),
  points: z.array(powerPointSchema),
  wall_seconds: z.number().nonnegative(),
});
export type GatePowerFile = z.infer<typeof gatePowerFileSchema>;

export async function readGatePowerFile(path: string): Promise<GatePowerFile> {
  const parsed = gatePowerFileSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
  if (!parsed.success)
    throw new Error(`${path}: not a gate-power file: ${parsed.error.issues.map((i) => i.path.join(".")).join(", ")}`);
  return parsed.data;
}
