import { execFile } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { ENTER_ENGINE } from "./engine-command";
import { SYSTEM_PATH } from "./host-sandbox";
import { type MountOp, mountCommands } from "./mount-plan";
import type { PodSandboxConfig } from "./pod-sandbox-config";

const run = promisify(execFile);

export type RunCommand = (command: string, args: string[]) => Promise<void>;

const runCommand: RunCommand = async (command, args) => {
  try {
    await run(command, args, { env: { PATH: SYSTEM_PATH } as unknown as NodeJS.ProcessEnv, timeout: 30_000 });
  } catch (error) {
    const stderr = ((error as { stderr?: string }).stderr ?? "").trim();
    throw new Error(`${command} ${args.join(" ")} failed: ${stderr || (error as Error).message}`);
  }
};

async function apply(op: MountOp, exec: RunCommand): Promise<void> {
  switch (op.op) {
    case "mkdir":
      await mkdir(op.path, { recursive: true });
      await chmod(op.path, op.mode);
      return;
    case "touch":
      await writeFile(op.path, "", { flag: "a" });
      return;
    default:
      for (const args of mountCommands(op)) await exec("mount", args);
  }
}

/**
 * Run by the pod's agent first of all, as root inside the pod's namespaces (made by the local backend): its mounts,
 * then its loopback, the only interface of its network namespace, which the agent and its engines talk over.
 * Any failure throws: the pod then ends before any engine starts, and the worker voids it as the arena's fault.
 */
export async function enterPodSandbox(config: PodSandboxConfig, exec: RunCommand = runCommand): Promise<void> {
  for (const op of config.mounts) await apply(op, exec);
  if (config.loopback) await exec("ip", ["link", "set", "lo", "up"]);
  // an engine that cannot join its cgroup would fail to start, and be charged for it: found here, it is the arena's
  if (config.cgroups.length > 0) await exec("bash", [ENTER_ENGINE, "-", "-", ...config.cgroups, "--", "true"]);
}
