import { chmod, mkdir, readdir, realpath, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CgroupLayout,
  type CgroupLimits,
  createPodCgroup,
  POD_CGROUP_PARENT,
  podCgroupPlan,
  removePodCgroup,
} from "../sandbox/cgroups";
import { joinCpuGroupCommand, podCpuPlan, podOfGroup } from "../sandbox/cpu-share";
import { type HostSandbox, UNSHARE_FLAGS } from "../sandbox/host-sandbox";
import { type Cover, POD_PATHS, type PodBind, PRIVATE_COVERS, podMountPlan } from "../sandbox/mount-plan";
import type { PodSandboxConfig } from "../sandbox/pod-sandbox-config";
import { type MissingProperty, missingProperties, type SandboxMechanism } from "../sandbox/properties";
import type { PodLaunch } from "../types";

const POD_INIT = fileURLToPath(new URL("../sandbox/pod-init.sh", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url)).replace(/\/$/, "");

const within = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

export interface LocalSandboxSettings {
  limits: CgroupLimits;
  /** Host folders no pod may see (the arena's data and state), covered in its mount namespace. */
  hide: readonly string[];
  /** false: the pod runs at the host's default CPU share, outside the pods' CPU group (to measure what the group does). */
  cpuGroup?: boolean;
}

/** One pod's sandbox as the local backend made it on the host. */
export interface PreparedPod {
  /** What the backend spawns: the agent, inside its namespaces where the host allows them. */
  command: string;
  args: string[];
  /** The agent's ARENA_* paths, pod-local where the pod has its own mounts. */
  paths: Record<string, string>;
  sandbox: PodSandboxConfig;
  missing: MissingProperty[];
  /** Whether engines run under a user other than the agent's, so that they cannot signal it. */
  separateUser: boolean;
  /** What the backend removes once the pod has ended. */
  cleanup: { workDir: string; cgroups: string[] };
  /** The pods' CPU group this pod's processes run in, or why they run at the host's default share. */
  cpu: { group: string } | { why: string };
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The covers this host has, each as the host resolves it (a `/var/tmp` that links to `/tmp` is one cover). */
async function hostCovers(): Promise<Cover[]> {
  const out: Cover[] = [];
  for (const cover of PRIVATE_COVERS) {
    const target = await realpath(cover.target).catch(() => null);
    if (target && !out.some((c) => c.target === target)) out.push({ ...cover, target });
  }
  return out;
}

/**
 * Makes what one local pod's sandbox needs on the host, and says how to start its agent:
 *
 * - its work folder (root-only, under the arena's data folder): the engines' scratch and the stage its mounts are
 *   put together in;
 * - its engine cgroup, with the memory and process limits;
 * - the command: `unshare` (the pod's own network with only loopback, PIDs, mounts, IPC and hostname) around
 *   pod-init.sh (PID 1, which reaps) around the agent, which makes the pod's mounts first of all (`ARENA_SANDBOX`).
 *   Nothing ties the pod to its worker: it outlives one killed outright, as a whole (`unshare --kill-child`: when its
 *   top process dies, so does the namespace's every process), until the next worker re-attaches to it or stops it,
 *   or the agent ends it at its deadline.
 *
 * Whatever the host cannot give is left out and listed in `missing`, with why.
 */
export async function prepareLocalPod(input: {
  podId: string;
  launch: PodLaunch;
  host: HostSandbox;
  settings: LocalSandboxSettings;
  workDir: string;
  logDir: string;
  agent: { command: string; args: string[] };
}): Promise<PreparedPod> {
  const { host, launch, workDir } = input;
  const lacking: Partial<Record<SandboxMechanism, string>> = { ...host.missing };
  await mkdir(workDir, { recursive: true, mode: 0o700 });
  await chmod(workDir, 0o700);
  const scratch = join(workDir, "scratch");
  await mkdir(scratch, { recursive: true });
  await chmod(scratch, 0o755);
  await mkdir(input.logDir, { recursive: true, mode: 0o700 });

  const namespaces = !lacking.namespaces;
  const hostPaths: Record<string, string> = {
    ARENA_ENGINE_DIR: launch.engineDir,
    ARENA_SPECULATOR_DIR: launch.speculatorDir,
    ARENA_TARGET_DIR: launch.targetDir,
    ARENA_STOCK_ENGINE_DIR: launch.stockEngineDir,
    ARENA_SCRATCH_DIR: scratch,
    ...(launch.poolPath ? { ARENA_POOL_PATH: launch.poolPath } : {}),
  };
  const sandbox: PodSandboxConfig = {
    mounts: [],
    loopback: namespaces,
    cgroups: [],
    privateDirs: [],
    logDir: input.logDir,
  };
  let paths = hostPaths;
  let spawnLine = [input.agent.command, ...input.agent.args];
  if (namespaces) {
    const stageDir = join(workDir, "stage");
    await mkdir(stageDir, { mode: 0o700 }).catch(() => undefined);
    const binds: PodBind[] = [
      { name: "engine", source: launch.engineDir, kind: "dir", readOnly: true },
      { name: "speculator", source: launch.speculatorDir, kind: "dir", readOnly: true },
      { name: "target", source: launch.targetDir, kind: "dir", readOnly: true },
      { name: "stockEngine", source: launch.stockEngineDir, kind: "dir", readOnly: true },
      { name: "scratch", source: scratch, kind: "dir", readOnly: false },
      { name: "logs", source: input.logDir, kind: "dir", readOnly: false },
      ...(launch.poolPath ? [{ name: "pool", source: launch.poolPath, kind: "file", readOnly: true } as const] : []),
    ];
    const hide: string[] = [];
    for (const path of input.settings.hide) {
      const real = await realpath(path).catch(() => null);
      // a folder that holds the arena's own code (a state folder set to the checkout) cannot be hidden from its pods
      if (real && (await exists(real)) && !within(REPO_ROOT, real)) hide.push(real);
    }
    sandbox.mounts = podMountPlan({
      stageDir: await realpath(stageDir),
      covers: await hostCovers(),
      binds: await Promise.all(binds.map(async (b) => ({ ...b, source: await realpath(b.source) }))),
      hide,
    });
    sandbox.privateDirs = ["/tmp", "/var/tmp", "/dev/shm"];
    sandbox.logDir = POD_PATHS.logs;
    paths = {
      ARENA_ENGINE_DIR: POD_PATHS.engine,
      ARENA_SPECULATOR_DIR: POD_PATHS.speculator,
      ARENA_TARGET_DIR: POD_PATHS.target,
      ARENA_STOCK_ENGINE_DIR: POD_PATHS.stockEngine,
      ARENA_SCRATCH_DIR: POD_PATHS.scratch,
      ...(launch.poolPath ? { ARENA_POOL_PATH: POD_PATHS.pool } : {}),
    };
    spawnLine = ["unshare", ...UNSHARE_FLAGS, "--", "bash", POD_INIT, input.agent.command, ...input.agent.args];
  }
  // made last: nothing above may fail and leave it behind
  let cgroups: string[] = [];
  if (host.cgroups && (!lacking["cgroup-memory"] || !lacking["cgroup-pids"])) {
    const plan = podCgroupPlan(host.cgroups, input.podId, input.settings.limits);
    try {
      await createPodCgroup(plan);
      cgroups = plan.enter;
      sandbox.cgroups = cgroups;
    } catch (error) {
      await removePodCgroup(plan.enter).catch(() => undefined);
      const why = `the pod's cgroup could not be made: ${(error as Error).message}`;
      lacking["cgroup-memory"] ??= why;
      lacking["cgroup-pids"] ??= why;
    }
  }

  let cpu: PreparedPod["cpu"] = {
    why: host.root
      ? "no cpu cgroup controller is mounted"
      : (host.missing["engine-user"] ?? "the worker does not run as root"),
  };
  const cleanupCgroups = [...cgroups];
  if (input.settings.cpuGroup === false) cpu = { why: "the pods' CPU group is turned off" };
  else if (host.root && host.cpu) {
    const plan = podCpuPlan(host.cpu, input.podId);
    try {
      await createPodCgroup(plan);
      cpu = { group: plan.enter[0]! };
      cleanupCgroups.push(...plan.enter);
      spawnLine = joinCpuGroupCommand(plan.enter[0]!, spawnLine);
    } catch (error) {
      await removePodCgroup(plan.enter).catch(() => undefined);
      cpu = { why: `the pods' CPU group could not be made: ${(error as Error).message}` };
    }
  }

  return {
    command: spawnLine[0]!,
    args: spawnLine.slice(1),
    paths,
    sandbox,
    missing: missingProperties(lacking),
    separateUser: !lacking["engine-user"],
    cleanup: { workDir, cgroups: cleanupCgroups },
    cpu,
  };
}

/** Removes what a pod left on the host: its cgroup (killing anything still in it) and its work folder. */
export async function cleanupLocalPod(cleanup: { workDir: string; cgroups: readonly string[] }): Promise<void> {
  await removePodCgroup(cleanup.cgroups).catch(() => undefined);
  await rm(cleanup.workDir, { recursive: true, force: true });
}

/**
 * Removes the engine cgroups and CPU groups of local pods that no longer live (`live`: the pods whose engine-user
 * claim is still held): a worker killed outright leaves its pods' cgroups behind, its pods themselves dying with it.
 * A cgroup is emptied of any process first. Resolves with the folders removed.
 */
export async function sweepStalePodCgroups(
  layout: CgroupLayout | null,
  live: ReadonlySet<string>,
  cpuRoot?: string | null,
): Promise<string[]> {
  const roots = new Set(
    layout === null
      ? []
      : layout.version === 2
        ? [layout.root]
        : [layout.memory, layout.pids].filter((r): r is string => r !== null),
  );
  if (cpuRoot) roots.add(cpuRoot);
  const removed: string[] = [];
  for (const root of roots) {
    const parent = join(root, POD_CGROUP_PARENT);
    for (const entry of await readdir(parent, { withFileTypes: true }).catch(() => [])) {
      const podId = podOfGroup(entry.name);
      if (!entry.isDirectory() || !podId.startsWith("local-") || live.has(podId)) continue;
      const dir = join(parent, entry.name);
      await removePodCgroup([dir]).then(
        () => removed.push(dir),
        () => undefined,
      );
    }
  }
  return removed;
}
