import { chmod, copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildAgentBundle } from "../../pods/agent/bundle/build-agent-bundle";
import { LAUNCHER_FILE } from "../../pods/engine-container/paths";

const LAUNCHER_SOURCE = fileURLToPath(new URL(`../../pods/engine-container/${LAUNCHER_FILE}`, import.meta.url));

/** Where the evaluation pods' files sit in the arena's image (the Kubernetes backend's agentBundleDir, launcherDir). */
export const IMAGE_POD_AGENT = "opt/arena/pod-agent";
export const IMAGE_ENGINE_LAUNCHER = "opt/arena/engine-launcher";

/**
 * What an evaluation pod takes from the arena's image, under `root` (the image's `/`): the pod agent bundle with the
 * simulated engine (the agent's container, and the sim runtime's engine container) and the engine container's
 * launcher (copied into each pod by its init container). The Node binary is the builder's: build on the GPU nodes'
 * architecture.
 */
export async function writePodFiles(root: string): Promise<void> {
  await buildAgentBundle(join(root, IMAGE_POD_AGENT), { node: "copy", simEngine: true });
  const launcher = join(root, IMAGE_ENGINE_LAUNCHER);
  await mkdir(launcher, { recursive: true });
  await copyFile(LAUNCHER_SOURCE, join(launcher, LAUNCHER_FILE));
  await chmod(join(launcher, LAUNCHER_FILE), 0o644);
}
