import { freePort } from "../pods/agent/free-port";
import { currentProtocol, getProfile, getTask, maxNumSeqs, type TaskId } from "../protocol";
import { spawnSimEngine } from "../sim-engine/spawn";
import type { StockEngine } from "./think-search";

/** A fresh simulated stock engine for `task` under `profile`, in the environment an evaluation pod gives it. */
export async function startSimStock(taskId: TaskId, profileName: string, simSpeed: number): Promise<StockEngine> {
  const task = getTask(taskId);
  const profile = getProfile(profileName);
  if (!profile) throw new Error(`unknown profile ${profileName}`);
  const engine = spawnSimEngine({
    port: await freePort(),
    args: ["--mode", "stock"],
    env: {
      SERVED_NAME: task.id,
      MAX_MODEL_LEN: String(task.maxModelLen),
      MAX_NUM_SEQS: String(maxNumSeqs(task, profile)),
      GPU_MEMORY_UTILIZATION: currentProtocol().engine.gpuMemoryUtilization.toFixed(2),
      PREFIX_CACHING: "1",
      SIM_SPEED: String(simSpeed),
    },
    readyTimeoutMs: 180_000,
  });
  await engine.ready;
  return { url: engine.url, servedName: task.id, stop: async () => void (await engine.stop()) };
}
