import { z } from "zod";

const intFrom = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .regex(/^\d+$/, `${name} must be a positive integer`)
    .transform(Number)
    .refine((n) => n > 0, `${name} must be a positive integer`);

const floatFrom = (name: string) =>
  z
    .string()
    .refine((s) => s.trim() !== "" && Number.isFinite(Number(s)), `${name} must be a number`)
    .transform(Number);

/** The engine's environment (protocol section 3) plus the simulator's own knobs. */
export const simEnvSchema = z.object({
  PORT: intFrom("PORT"),
  SERVED_NAME: z.string({ error: "SERVED_NAME is required" }).min(1, "SERVED_NAME must not be empty"),
  MAX_MODEL_LEN: intFrom("MAX_MODEL_LEN").default(40_960),
  MAX_NUM_SEQS: intFrom("MAX_NUM_SEQS").default(20),
  GPU_MEMORY_UTILIZATION: floatFrom("GPU_MEMORY_UTILIZATION")
    .refine((u) => u > 0 && u <= 1, "GPU_MEMORY_UTILIZATION must be in (0, 1]")
    .default(0.9),
  PREFIX_CACHING: z
    .enum(["0", "1", "true", "false"], { error: "PREFIX_CACHING must be 0 or 1" })
    .transform((v) => v === "1" || v === "true")
    .default(true),
  TARGET: z.string().optional(),
  SPECULATOR: z.string().optional(),
  TOKENIZER: z.string().optional(),
  /** Cost-model time is divided by this (tests run the engine many times faster than a GPU). */
  SIM_SPEED: floatFrom("SIM_SPEED")
    .refine((s) => s > 0, "SIM_SPEED must be positive")
    .default(1),
  /** Where the simulated device's memory in use is published, in nvidia-smi's csv form. */
  SIM_DEVICE_FILE: z.string().min(1).optional(),
});

export type SimEnv = z.infer<typeof simEnvSchema>;

export function parseSimEnv(env: Record<string, string | undefined>): SimEnv {
  const defined = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = simEnvSchema.safeParse(defined);
  if (!parsed.success) {
    throw new Error(`sim-engine: bad environment: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  }
  return parsed.data;
}
