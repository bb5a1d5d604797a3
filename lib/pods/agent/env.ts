import { z } from "zod";
import { isTaskId } from "../../protocol";

const schema = z.object({
  ARENA_EVALUATION_ID: z.string().min(1),
  ARENA_ATTEMPT: z.coerce.number().int().positive(),
  ARENA_TASK: z.string().refine(isTaskId, "is not a task"),
  ARENA_PROFILE: z.string().min(1),
  ARENA_SEED: z.string().min(1),
  ARENA_ENGINE_DIR: z.string().min(1),
  ARENA_SPECULATOR_DIR: z.string().min(1),
  ARENA_TARGET_DIR: z.string().min(1),
  ARENA_STOCK_ENGINE_DIR: z.string().min(1),
  ARENA_SCRATCH_DIR: z.string().min(1),
  ARENA_DEADLINE_SECONDS: z.coerce.number().positive().optional(),
  /** The session pool to play: the public dev pool by default; a test evaluation names the hidden one. */
  ARENA_POOL_PATH: z.string().optional(),
  /** "sim": engines are simulated and the device is the simulated one where no GPU answers. */
  ARENA_ENGINE_RUNTIME: z.enum(["sim", "vllm"]).default("vllm"),
  ARENA_SIM_ENGINE: z.string().optional(),
  SIM_SPEED: z.string().optional(),
  /** The unprivileged user this pod's engines run as; pods on one host each get their own, since the agent kills all of its processes. */
  ARENA_ENGINE_USER: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,30}$/)
    .default("arena-engine"),
  /** Shortens the protocol's 120 s stop grace for tests; never above it. */
  ARENA_STOP_GRACE_SECONDS: z.coerce.number().positive().optional(),
});

export type AgentEnv = z.infer<typeof schema> & { ARENA_TASK: "qwen3-8b" | "qwen35-27b" };

/** The pod agent's environment, parsed once. */
export function agentEnv(source: Record<string, string | undefined>): AgentEnv {
  const result = schema.safeParse(source);
  if (!result.success) {
    throw new Error(
      `invalid agent environment: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return result.data as AgentEnv;
}
