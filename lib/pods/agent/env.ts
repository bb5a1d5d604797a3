import { z } from "zod";
import { isTaskId } from "../../protocol";

/**
 * A search path the image set (PATH, LD_LIBRARY_PATH): absolute directories only. Empty entries (an image's
 * `ENV LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH` over an unset one) are dropped, since the loader reads them as the
 * engine's working directory.
 */
const searchPath = (name: string) =>
  z
    .string()
    .transform((value) => value.split(":").filter((entry) => entry !== ""))
    .refine((entries) => entries.every((entry) => entry.startsWith("/")), `${name} must list absolute directories`)
    .transform((entries) => (entries.length > 0 ? entries.join(":") : undefined));

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
  /** The pod's hard limit: past it the agent stops its engines and exits (AGENT_EXIT.deadline), worker or none. */
  ARENA_DEADLINE_SECONDS: z.coerce.number().positive().optional(),
  /**
   * Where the agent writes its events (the local backend: a file in the pod's root-only work folder, opened before
   * the pod's mounts hide it); absent: its standard output, as a Kubernetes pod's log carries them.
   */
  ARENA_EVENTS_FILE: z.string().min(1).optional(),
  /** The session pool to play: the public dev pool by default; a test evaluation names the hidden one. */
  ARENA_POOL_PATH: z.string().optional(),
  /** "sim": engines are simulated and the device is the simulated one where no GPU answers. */
  ARENA_ENGINE_RUNTIME: z.enum(["sim", "vllm"]).default("vllm"),
  ARENA_SIM_ENGINE: z.string().optional(),
  /**
   * Where device memory is read: the simulated engine's file (the sim runtime's default), nvidia-smi, or nvidia-smi
   * where a GPU answers (the vLLM runtime's default). The GPU drill runs simulated engines against a real device.
   */
  ARENA_DEVICE_PROBE: z.enum(["auto", "nvidia", "simulated"]).optional(),
  SIM_SPEED: z.string().optional(),
  /** The unprivileged user this pod's engines run as; pods on one host each get their own, since the agent kills all of its processes. */
  ARENA_ENGINE_USER: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,30}$/)
    .default("arena-engine"),
  /** The local backend's sandbox for this pod (lib/pods/sandbox/pod-sandbox-config.ts), JSON; absent elsewhere. */
  ARENA_SANDBOX: z.string().optional(),
  /**
   * A Kubernetes pod's engine container (lib/pods/engine-container/paths.ts), JSON: engines start there, through its
   * launcher, instead of as this agent's children.
   */
  ARENA_ENGINE_CONTAINER: z.string().optional(),
  /** Shortens the protocol's 120 s stop grace for tests; never above it. */
  ARENA_STOP_GRACE_SECONDS: z.coerce.number().positive().optional(),
  /** The image's own PATH and LD_LIBRARY_PATH (the pinned vLLM image's CUDA and Python), handed to engines. */
  PATH: searchPath("PATH").optional(),
  LD_LIBRARY_PATH: searchPath("LD_LIBRARY_PATH").optional(),
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
