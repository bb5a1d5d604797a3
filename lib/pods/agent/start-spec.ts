import { join } from "node:path";
import type { TaskId } from "../../protocol";
import { engineEnv } from "./engine-env";

export type StartRole = "candidate" | "stock";

export interface StartSpecInput {
  role: StartRole;
  /** The start's place in the pod (1: the candidate's timed start, 2: the stock engine's, 3 and 4: the checks'). */
  start: number;
  gpuMemoryUtilization: number;
  port: number;
  taskId: TaskId;
  profile: string;
  scratchRoot: string;
  engineDir: string;
  stockEngineDir: string;
  targetDir: string;
  speculatorDir: string;
  noSpeculatorDir: string;
  login: string;
  image: { PATH?: string; LD_LIBRARY_PATH?: string };
  simulated: Record<string, string>;
}

/** What one start of an engine is given: its command, directory, environment, and the operators' name for it. */
export interface StartSpec {
  /** The operators' name of this start (its log file, its lines in the engine container's output): never the engine's. */
  name: string;
  engineDir: string;
  /** The start's HOME, TMPDIR and working directory, removed when it stops. */
  scratchDir: string;
  argv: string[];
  env: Record<string, string>;
}

/**
 * One engine start. The timed start and the checks' restart of an engine differ only in what the protocol fixes,
 * GPU_MEMORY_UTILIZATION (and the free port drawn for each): the scratch folder is named by the role, not the start,
 * so an engine cannot tell a restart from its path (it is removed when the engine stops, before the next start).
 */
export function engineStartSpec(input: StartSpecInput): StartSpec {
  const scratchDir = join(input.scratchRoot, input.role);
  const engineDir = input.role === "candidate" ? input.engineDir : input.stockEngineDir;
  return {
    name: `${input.role}-${input.start}`,
    engineDir,
    scratchDir,
    argv: ["bash", join(engineDir, "launch.sh"), "serve"],
    env: engineEnv({
      taskId: input.taskId,
      profile: input.profile,
      port: input.port,
      targetDir: input.targetDir,
      speculatorDir: input.role === "candidate" ? input.speculatorDir : input.noSpeculatorDir,
      gpuMemoryUtilization: input.gpuMemoryUtilization,
      homeDir: scratchDir,
      login: input.login,
      image: input.image,
      simulated: input.simulated,
    }),
  };
}
