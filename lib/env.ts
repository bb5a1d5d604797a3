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
  /** The port the web app listens on (`next start` and the image's server.js set it): the page cache renders from it. */
  PORT: z.coerce.number().int().positive().default(3000),
  /** Where the page cache asks the web app for a page (lib/page-cache); default http://127.0.0.1:$PORT. */
  PAGE_RENDER_ORIGIN: z.string().url().optional(),
  /** The rendered-page cache for readers who are not signed in: "off" renders every answer. */
  PAGE_CACHE: z.enum(["on", "off"]).default("on"),
  /**
   * Whether the web process renders each final evaluation's page soon after its final move and keeps it in PostgreSQL
   * (lib/page-cache/prerender-final-pages.ts), so that a reader's first read is a read; "off": first reads render.
   */
  PAGE_PRERENDER: z.enum(["on", "off"]).default("on"),
  /** How participants reach the operators for a token while registration is closed: an email address or a URL. */
  OPERATORS_CONTACT: z.string().trim().min(1).optional(),
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
  /**
   * The local pods' engine sandbox (lib/pods/README.md): "auto" builds what the host allows (all of it as root with
   * `unshare`), "off" nothing; an evaluation's log and result record say what its sandbox lacked.
   */
  ENGINE_SANDBOX: z.enum(["auto", "off"]).default("auto"),
  /** A local pod's engines' memory limit (their cgroup's), in MiB; default: 80% of the host's memory over GPU_SLOTS. */
  ENGINE_MEMORY_LIMIT_MB: z.coerce.number().int().positive().optional(),
  /** A local pod's engines' process (and thread) limit. */
  ENGINE_PIDS_LIMIT: z.coerce.number().int().positive().default(4096),
  /** The arena's own state (`npm run arena`'s embedded services, the operator's password), which no pod may see. */
  ARENA_STATE_DIR: z.string().default(".arena"),
  DEFAULT_PROFILE: z.string().default("full"),
  /** How long a worker's claim on an evaluation lasts unrenewed; a dead worker's evaluation resumes after it. */
  EVALUATION_LEASE_SECONDS: z.coerce.number().positive().default(60),
  /** How soon BullMQ hands a dead worker's job to another (its lock and stalled-check period). */
  WORKER_STALLED_MS: z.coerce.number().int().positive().default(30_000),
  /** How often the worker reconciles the queue with PostgreSQL and checks that its upkeep schedule is in Redis. */
  RECONCILE_EVERY_MS: z.coerce.number().int().positive().default(30_000),
  /** Failed token authentications one address may make in a minute; past it they get 429 (valid tokens still pass). */
  AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(20),
  /**
   * Proxies in front of the arena that append the caller to X-Forwarded-For. 0: the socket's peer is the caller and
   * X-Forwarded-For is ignored; n: the n-th address from the right of X-Forwarded-For (what the outermost one saw).
   */
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** The bearer token GET /api/metrics asks of Prometheus; absent: the endpoint answers 404. */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** Requests one address may make to the API in a minute, authenticated or not. */
  API_REQUESTS_PER_MINUTE_PER_ADDRESS: z.coerce.number().int().positive().default(600),
  /** Requests one token may make to the API in a minute. */
  API_REQUESTS_PER_MINUTE_PER_TOKEN: z.coerce.number().int().positive().default(300),
  /** Registration attempts one address may make in an hour (open registration only hands out tokens this fast). */
  REGISTRATIONS_PER_HOUR_PER_ADDRESS: z.coerce.number().int().positive().default(10),
  /** Operator sign-in attempts one address may make per SIGN_IN_WINDOW_SECONDS (a successful one is not counted). */
  SIGN_IN_FAILURES_PER_ADDRESS: z.coerce.number().int().positive().default(10),
  /** Failed operator sign-ins from all addresses together per SIGN_IN_WINDOW_SECONDS: a distributed guesser's cap. */
  SIGN_IN_FAILURES_PER_WINDOW: z.coerce.number().int().positive().default(100),
  SIGN_IN_WINDOW_SECONDS: z.coerce.number().int().positive().default(900),
  /** The most bytes a request body may have; refused with 413 on its declared length and again while it streams. */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /** The same for a submission, whose inline engine archive may be 2,800,000 base64 characters. */
  MAX_SUBMISSION_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(3 * 1024 * 1024),
  /** The most bytes an inline engine archive may unpack to (the protocol's repository limit), checked while it streams. */
  ENGINE_ARCHIVE_MAX_UNPACKED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(200 * 1024 * 1024),
  /** The most entries (files and folders) an inline engine archive may hold. */
  ENGINE_ARCHIVE_MAX_FILES: z.coerce.number().int().positive().default(10_000),
  /** How long fetching an engine repository may take before the evaluation is void (the arena's fault, refunded). */
  GIT_FETCH_TIMEOUT_SECONDS: z.coerce.number().positive().default(300),
  /** The hosts an engine repository's https URL may name (comma-separated); GIT_BASE_URL's "org/repo" form is the operators'. */
  GIT_ALLOWED_HOSTS: z
    .string()
    .default("github.com,huggingface.co")
    .transform((list) =>
      list
        .split(",")
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ""),
    ),
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
