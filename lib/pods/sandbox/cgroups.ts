import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Where a host's memory and pids controllers are: cgroup v2 (one hierarchy, a fresh Debian host's `/sys/fs/cgroup`),
 * or v1 (one hierarchy per controller, as on hosts and containers that mount `/sys/fs/cgroup/{memory,pids}`; their
 * cgroup2 at `/sys/fs/cgroup/unified` then has neither controller).
 */
export type CgroupLayout =
  | { version: 2; root: string; controllers: ("memory" | "pids")[] }
  | { version: 1; memory: string | null; pids: string | null };

/** The folder every local pod's cgroup is made in, under each hierarchy's root. */
export const POD_CGROUP_PARENT = "arena-pods";

export interface MountLine {
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

/** mountinfo writes a space, tab, newline or backslash in a path as a backslash and three octal digits. */
const octalUnescaped = (s: string) =>
  s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8)));

/** `/proc/self/mountinfo`'s lines (proc(5)): the mount point is the 5th field, the type and options follow " - ". */
export function mountLines(mountinfo: string): MountLine[] {
  const out: MountLine[] = [];
  for (const line of mountinfo.split("\n")) {
    const [head, tail] = line.split(" - ");
    if (!head || !tail) continue;
    const fields = head.split(" ");
    const [fsType, , options] = tail.split(" ");
    if (fields.length < 5 || !fsType) continue;
    out.push({ mountPoint: octalUnescaped(fields[4]!), fsType, superOptions: (options ?? "").split(",") });
  }
  return out;
}

/**
 * The layout the memory and pids controllers have on this host, from its mountinfo and each cgroup2 mount's
 * `cgroup.controllers` (read through `controllersOf`): v2 where one cgroup2 mount offers both, else v1's
 * hierarchies; null when neither controller is mounted anywhere.
 */
export function cgroupLayout(mountinfo: string, controllersOf: (root: string) => string | null): CgroupLayout | null {
  const mounts = mountLines(mountinfo);
  let bestV2: { root: string; controllers: ("memory" | "pids")[] } | null = null;
  for (const m of mounts.filter((m) => m.fsType === "cgroup2")) {
    const offered = (controllersOf(m.mountPoint) ?? "").trim().split(/\s+/);
    const controllers = (["memory", "pids"] as const).filter((c) => offered.includes(c));
    if (!bestV2 || controllers.length > bestV2.controllers.length) bestV2 = { root: m.mountPoint, controllers };
  }
  if (bestV2 && bestV2.controllers.length === 2) return { version: 2, ...bestV2 };
  const v1 = (controller: string) =>
    mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes(controller))?.mountPoint ?? null;
  const memory = v1("memory");
  const pids = v1("pids");
  if (memory || pids) return { version: 1, memory, pids };
  if (bestV2 && bestV2.controllers.length > 0) return { version: 2, ...bestV2 };
  return null;
}

export interface CgroupLimits {
  memoryBytes: number;
  pids: number;
}

export interface CgroupWrite {
  path: string;
  value: string;
  /** Written only where the file exists (swap accounting is a kernel option). */
  optional?: boolean;
}

export interface PodCgroupPlan {
  /** Folders made in order (the parent first); the pod's own are `enter`. */
  create: string[];
  /** Files written in order once the folders exist. */
  writes: CgroupWrite[];
  /** The pod's cgroup folders an engine joins (one per v1 hierarchy, or the one v2 folder). */
  enter: string[];
  /** Which limits this plan sets: a layout may offer one controller and not the other. */
  limits: ("memory" | "pids")[];
}

/**
 * The folders and files that make a pod's engine cgroup under `layout`: the memory limit (and no swap beyond it) and
 * the process limit. On v2, the parent's `cgroup.subtree_control` hands it the controllers first (the root's too:
 * writing one already enabled changes nothing).
 */
export function podCgroupPlan(layout: CgroupLayout, podId: string, limits: CgroupLimits): PodCgroupPlan {
  if (!/^[A-Za-z0-9._-]+$/.test(podId)) throw new Error(`a pod id unfit for a cgroup's name: ${podId}`);
  const bytes = String(Math.floor(limits.memoryBytes));
  const pids = String(Math.floor(limits.pids));
  if (layout.version === 2) {
    const parent = join(layout.root, POD_CGROUP_PARENT);
    const own = join(parent, podId);
    const enable = layout.controllers.map((c) => `+${c}`).join(" ");
    const writes: CgroupWrite[] = [
      { path: join(layout.root, "cgroup.subtree_control"), value: enable },
      { path: join(parent, "cgroup.subtree_control"), value: enable },
    ];
    if (layout.controllers.includes("memory")) {
      writes.push({ path: join(own, "memory.max"), value: bytes });
      writes.push({ path: join(own, "memory.swap.max"), value: "0", optional: true });
    }
    if (layout.controllers.includes("pids")) writes.push({ path: join(own, "pids.max"), value: pids });
    // the subtree_control writes must precede the pod's folder, whose limit files appear only once it has them
    return { create: [parent], writes, enter: [own], limits: [...layout.controllers] };
  }
  const create: string[] = [];
  const writes: CgroupWrite[] = [];
  const enter: string[] = [];
  const set: ("memory" | "pids")[] = [];
  if (layout.memory) {
    const own = join(layout.memory, POD_CGROUP_PARENT, podId);
    create.push(join(layout.memory, POD_CGROUP_PARENT), own);
    // memsw (memory + swap) may not be set below the memory limit, so it comes after it
    writes.push({ path: join(own, "memory.limit_in_bytes"), value: bytes });
    writes.push({ path: join(own, "memory.memsw.limit_in_bytes"), value: bytes, optional: true });
    enter.push(own);
    set.push("memory");
  }
  if (layout.pids) {
    const own = join(layout.pids, POD_CGROUP_PARENT, podId);
    create.push(join(layout.pids, POD_CGROUP_PARENT), own);
    writes.push({ path: join(own, "pids.max"), value: pids });
    enter.push(own);
    set.push("pids");
  }
  return { create, writes, enter, limits: set };
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Makes a pod's cgroup as planned. On v2 the pod's own folder is made between the parent's writes and its own. */
export async function createPodCgroup(plan: PodCgroupPlan): Promise<void> {
  for (const dir of plan.create) await mkdir(dir, { recursive: true });
  for (const write of plan.writes) {
    const folder = write.path.slice(0, write.path.lastIndexOf("/"));
    if (plan.enter.includes(folder)) await mkdir(folder, { recursive: true });
    if (write.optional && !(await exists(write.path))) continue;
    await writeFile(write.path, write.value);
  }
  for (const dir of plan.enter) await mkdir(dir, { recursive: true });
}

/** The pids in a cgroup folder (as this process's PID namespace numbers them). */
export async function cgroupPids(dir: string): Promise<number[]> {
  const text = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
  return text
    .split("\n")
    .map((l) => Number.parseInt(l, 10))
    .filter((n) => Number.isInteger(n) && n > 0);
}

/**
 * Kills every process in the pod's engine cgroup, whatever its user, and waits until none is left: `cgroup.kill`
 * where the kernel has it (v2, 5.14+), else SIGKILL to each member until a read finds none (a process forked between
 * a read and its kill is found by the next read). Resolves with how many processes were found; throws when some
 * remain past `timeoutMs` (a process stuck in the kernel).
 */
export async function killCgroup(dirs: readonly string[], timeoutMs = 30_000): Promise<number> {
  const seen = new Set<number>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let left = 0;
    for (const dir of dirs) {
      const pids = await cgroupPids(dir);
      left += pids.length;
      if (pids.length === 0) continue;
      for (const pid of pids) seen.add(pid);
      const kill = join(dir, "cgroup.kill");
      if (await exists(kill)) await writeFile(kill, "1").catch(() => undefined);
      else
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // gone already
          }
        }
    }
    if (left === 0) return seen.size;
    if (Date.now() > deadline) throw new Error(`${left} processes of the engine's cgroup outlived SIGKILL`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Removes a pod's cgroup folders (each must be empty of processes); a folder already gone is fine. */
export async function removePodCgroup(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    await killCgroup([dir], 10_000).catch(() => undefined);
    await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  }
}
