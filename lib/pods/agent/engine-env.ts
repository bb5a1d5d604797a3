import { getProfile, getTask, maxNumSeqs, type TaskId } from "../../protocol";

export interface EngineEnvInput {
  taskId: TaskId;
  profile: string;
  port: number;
  targetDir: string;
  speculatorDir: string;
  gpuMemoryUtilization: number;
  /** Settings the simulated engine reads (its launcher, speed, device file); empty for real engines. */
  simulated: Record<string, string>;
}

/** The environment of `launch.sh serve`, as the protocol's section 3 lists it. */
export function engineEnv(input: EngineEnvInput): Record<string, string> {
  const task = getTask(input.taskId);
  const profile = getProfile(input.profile);
  if (!profile) throw new Error(`unknown profile ${input.profile}`);
  const env: Record<string, string> = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
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
