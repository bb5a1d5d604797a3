import { getProfile, getTask, maxNumSeqs, type TaskId } from "../../protocol";

/** Where an image states no PATH of its own: the system's directories, nothing of the agent's. */
export const FALLBACK_PATH = "/usr/local/bin:/usr/bin:/bin";

export interface EngineEnvInput {
  taskId: TaskId;
  profile: string;
  port: number;
  targetDir: string;
  speculatorDir: string;
  gpuMemoryUtilization: number;
  /** The start's own scratch directory: the engine's HOME (pip's user site, its caches) and TMPDIR. */
  homeDir: string;
  /** USER and LOGNAME: the engine user's login name (`engineLogin`). */
  login: string;
  /** The image's own PATH and LD_LIBRARY_PATH, as the agent's environment holds them. */
  image: { PATH?: string; LD_LIBRARY_PATH?: string };
  /** Settings the simulated engine reads (its launcher, speed, device file); empty for real engines. */
  simulated: Record<string, string>;
}

/**
 * The whole environment of `launch.sh serve` (and of the `plugin/` installer before it): built from nothing,
 * so nothing of the agent's own (its ARENA_* settings, any credential) reaches an engine.
 *
 * - the protocol's section 3 variables;
 * - what the pinned image needs to run vLLM as an unprivileged user: its PATH and LD_LIBRARY_PATH (CUDA,
 *   the system Python), HOME for the user site and caches, and USER/LOGNAME, since vLLM's import of torch
 *   calls `getpass.getuser()`, which fails for a uid without a passwd entry unless they are set
 *   (vllm-project/vllm#44548);
 * - the switches that say there is no network, so no library waits on one.
 */
export function engineEnv(input: EngineEnvInput): Record<string, string> {
  const task = getTask(input.taskId);
  const profile = getProfile(input.profile);
  if (!profile) throw new Error(`unknown profile ${input.profile}`);
  const env: Record<string, string> = {
    PATH: input.image.PATH ?? FALLBACK_PATH,
    ...(input.image.LD_LIBRARY_PATH ? { LD_LIBRARY_PATH: input.image.LD_LIBRARY_PATH } : {}),
    HOME: input.homeDir,
    TMPDIR: input.homeDir,
    USER: input.login,
    LOGNAME: input.login,
    HF_HUB_OFFLINE: "1",
    TRANSFORMERS_OFFLINE: "1",
    VLLM_NO_USAGE_STATS: "1",
    DO_NOT_TRACK: "1",
    TARGET: input.targetDir,
    ARTIFACT: input.targetDir,
    SPECULATOR: input.speculatorDir,
    TOKENIZER: input.targetDir,
    GENERATION_CONFIG: input.targetDir,
    PORT: String(input.port),
    SERVED_NAME: task.target.repository,
    MAX_MODEL_LEN: String(task.maxModelLen),
    MAX_NUM_SEQS: String(maxNumSeqs(task, profile)),
    GPU_MEMORY_UTILIZATION: input.gpuMemoryUtilization.toFixed(2),
    PREFIX_CACHING: "1",
    ...input.simulated,
  };
  if (task.languageModelOnly) env.LANGUAGE_MODEL_ONLY = "1";
  return env;
}
