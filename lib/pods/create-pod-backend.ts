import { totalmem } from "node:os";
import { join, resolve } from "node:path";
import { env } from "../env";
import { dataDir, privateDataDir, repoRoot, simEngineCommand } from "../evaluations/runtime";
import { LocalPodBackend } from "./local/local-pod-backend";
import type { PodBackend } from "./types";

/** The configured pod backend: local child processes (the embedded default) or Kubernetes. */
export async function createPodBackend(): Promise<PodBackend> {
  const e = env();
  if (e.POD_BACKEND === "kubernetes") {
    // loaded only here: client-node costs a local worker's start ~2 s of CPU (1.4 s of wall) for nothing
    const { createKubernetesPodBackend, kubernetesBackendConfigFromEnv } = await import("./kubernetes");
    // The Kubernetes settings are their own block of the environment, checked by the backend's schema.
    return createKubernetesPodBackend(
      kubernetesBackendConfigFromEnv(e.kubernetes, { engineRuntime: e.ENGINE_RUNTIME, simSpeed: e.SIM_SPEED }),
    );
  }
  await privateDataDir();
  const memoryMb = e.ENGINE_MEMORY_LIMIT_MB ?? Math.floor(((totalmem() / 2 ** 20) * 0.8) / e.GPU_SLOTS);
  return new LocalPodBackend({
    stateDir: join(dataDir(), "local-pods"),
    agentEnv: {
      ARENA_ENGINE_RUNTIME: e.ENGINE_RUNTIME,
      ARENA_SIM_ENGINE: simEngineCommand(),
      SIM_SPEED: String(e.SIM_SPEED),
    },
    sandbox: e.ENGINE_SANDBOX,
    sandboxSettings: {
      limits: { memoryBytes: memoryMb * 2 ** 20, pids: e.ENGINE_PIDS_LIMIT },
      // the arena's data (every evaluation's inputs, the pools) and state: no pod sees them, its own inputs aside
      hide: [dataDir(), resolve(repoRoot(), e.ARENA_STATE_DIR)],
    },
  });
}
