import { z } from "zod";

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().url({ message: "DATABASE_URL must be a postgresql:// URL" }),
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  /** BullMQ's key prefix: separate arenas (and test files) can share one Redis. */
  QUEUE_PREFIX: z.string().default("arena"),
  NEXTAUTH_URL: z.string().url().optional(),
  NEXTAUTH_SECRET: z.string().min(16).optional(),
  ADMIN_EMAIL: z.string().email().default("admin@arena.local"),
  ADMIN_PASSWORD: z.string().min(8).optional(),
  ARENA_DATA_DIR: z.string().default(".arena/data"),
  ARENA_PUBLIC_URL: z.string().default("http://localhost:3000"),
  POD_BACKEND: z.enum(["local", "kubernetes"]).default("local"),
  GPU_SLOTS: z.coerce.number().int().positive().default(1),
  HUB_BASE_URL: z.string().url().default("https://huggingface.co"),
  HUB_TOKEN: z.string().optional(),
  /** Where "org/repo" engine repositories are cloned from. */
  GIT_BASE_URL: z.string().default("https://github.com"),
  /** "sim": the simulated engine is the stock engine and the target (the embedded default); "vllm": the pinned image's. */
  ENGINE_RUNTIME: z.enum(["sim", "vllm"]).default("sim"),
  /** The sealed targets, one directory per task (for "vllm"); the simulated targets are made here too. */
  TARGETS_DIR: z.string().optional(),
  /** The hidden `test` pool (the operators' file, never served); the embedded default makes one from held-out public data. */
  TEST_POOL_PATH: z.string().optional(),
  /** The public data the embedded default's test pool is cut from. */
  PUBLIC_DATA_DIR: z.string().default("../shared/data"),
  /** Overrides the stock engine's directory (an operator's own stock launch.sh; tests of a stock engine that fails). */
  STOCK_ENGINE_DIR: z.string().optional(),
  /** Simulated engines run their cost model this many times faster (the embedded default's demo uses 1). */
  SIM_SPEED: z.coerce.number().positive().default(1),
  DEFAULT_PROFILE: z.string().default("full"),
  /** How long a worker's claim on an evaluation lasts unrenewed; a dead worker's evaluation resumes after it. */
  EVALUATION_LEASE_SECONDS: z.coerce.number().positive().default(60),
  /** How soon BullMQ hands a dead worker's job to another (its lock and stalled-check period). */
  WORKER_STALLED_MS: z.coerce.number().int().positive().default(30_000),
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(20),
  KUBE_NAMESPACE: z.string().default("speculator-arena-evals"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

/** The Kubernetes backend's own block (KUBE_*), checked by its schema in lib/pods/kubernetes/config.ts. */
type KubernetesEnv = Record<string, string | undefined>;

export type Env = z.infer<typeof envSchema> & { kubernetes: KubernetesEnv };

let parsed: Env | undefined;

/** The arena's environment, parsed once; nothing else reads process.env. */
export function env(): Env {
  if (!parsed) {
    const result = envSchema.safeParse(process.env);
    if (!result.success) {
      const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      throw new Error(`invalid environment: ${problems}`);
    }
    const kubernetes = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith("KUBE_")));
    parsed = { ...result.data, kubernetes };
  }
  return parsed;
}

/** For tests that point the arena at a throwaway database: forget the parsed environment. */
export function resetEnvForTests(): void {
  parsed = undefined;
}
