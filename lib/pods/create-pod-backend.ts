import { join } from "node:path";
import { env } from "../env";
import { dataDir, simEngineCommand } from "../evaluations/runtime";
import { createKubernetesPodBackend, kubernetesBackendConfigFromEnv } from "./kubernetes";
import { LocalPodBackend } from "./local/local-pod-backend";
import type { PodBackend } from "./types";

/** The configured pod backend: local child processes (the embedded default) or Kubernetes. */
export async function createPodBackend(): Promise<PodBackend> {
  const e = env();
  if (e.POD_BACKEND === "kubernetes") {
    // The Kubernetes settings are their own block of the environment, checked by the backend's schema.
    return createKubernetesPodBackend(kubernetesBackendConfigFromEnv(e.kubernetes));
  }
  return new LocalPodBackend({
    stateDir: join(dataDir(), "local-pods"),
    agentEnv: {
      ARENA_ENGINE_RUNTIME: e.ENGINE_RUNTIME,
      ARENA_SIM_ENGINE: simEngineCommand(),
      SIM_SPEED: String(e.SIM_SPEED),
      ARENA_POOLS_DIR: join(dataDir(), "pools"),
    },
  });
}
