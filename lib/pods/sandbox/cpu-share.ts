import { join } from "node:path";
import { mountLines, POD_CGROUP_PARENT, type PodCgroupPlan } from "./cgroups";

/** Where the host's cpu controller is: a v1 hierarchy of its own (`cpu` or `cpu,cpuacct`), or a cgroup2 mount. */
export interface CpuCgroupRoot {
  version: 1 | 2;
  root: string;
}

/**
 * How many times one other group's CPU the local pods get together when the cores are contended: a pod's timed
 * passes are the arena's measurement, and on a shared host (the embedded default, CI) every other program would
 * otherwise take its equal share beside them (an autogroup per session, a cgroup per service). The pods share what
 * they hold equally among themselves; each takes only what it uses, so the rest of the host keeps whatever the pods
 * leave idle.
 */
export const POD_CPU_SHARE = 10;

/** The cpu controller's place, from the host's mountinfo and each cgroup2 mount's `cgroup.controllers`. */
export function cpuCgroupRoot(mountinfo: string, controllersOf: (root: string) => string | null): CpuCgroupRoot | null {
  const mounts = mountLines(mountinfo);
  const v1 = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes("cpu"));
  if (v1) return { version: 1, root: v1.mountPoint };
  const v2 = mounts.find(
    (m) => m.fsType === "cgroup2" && (controllersOf(m.mountPoint) ?? "").trim().split(/\s+/).includes("cpu"),
  );
  return v2 ? { version: 2, root: v2.mountPoint } : null;
}

/** The name of a pod's own CPU group under the pods' parent; its engines' memory and pids cgroups are `<podId>`. */
export const podCpuGroupName = (podId: string) => `agent-${podId}`;

/** The pod a folder under the pods' parent belongs to: its own (`<podId>`) or its CPU group's (`agent-<podId>`). */
export const podOfGroup = (name: string) => (name.startsWith("agent-") ? name.slice("agent-".length) : name);

/**
 * The folders and files that put a pod's processes in the pods' CPU group: `arena-pods` holds POD_CPU_SHARE times a
 * default group's weight (v1 `cpu.shares`, default 1024; v2 `cpu.weight`, default 100), and each pod's agent has a
 * group of default weight inside it (`enter`, made by createPodCgroup as an engine cgroup is). On v1 the engines stay in it (their memory and pids cgroups are other
 * hierarchies); on v2 they move to their own cgroup `arena-pods/<podId>`, inside the same weighted parent.
 */
export function podCpuPlan(cpu: CpuCgroupRoot, podId: string): PodCgroupPlan {
  if (!/^[A-Za-z0-9._-]+$/.test(podId)) throw new Error(`a pod id unfit for a cgroup's name: ${podId}`);
  const parent = join(cpu.root, POD_CGROUP_PARENT);
  const dir = join(parent, podCpuGroupName(podId));
  if (cpu.version === 1)
    return {
      create: [parent],
      writes: [{ path: join(parent, "cpu.shares"), value: String(1024 * POD_CPU_SHARE) }],
      enter: [dir],
      limits: [],
    };
  // the weight file appears in the parent once the root hands it the cpu controller
  return {
    create: [parent],
    writes: [
      { path: join(cpu.root, "cgroup.subtree_control"), value: "+cpu" },
      { path: join(parent, "cpu.weight"), value: String(100 * POD_CPU_SHARE) },
    ],
    enter: [dir],
    limits: [],
  };
}

/**
 * What the backend spawns in place of `command`: a shell that moves itself into the pod's CPU group, then execs the
 * command, so that no process or thread of the pod starts outside it. Where the move fails, the pod still runs, at
 * the host's default share, and its agent's log says so.
 */
export function joinCpuGroupCommand(dir: string, command: string[]): string[] {
  const script = `{ echo $$ > "$1/cgroup.procs"; } 2>/dev/null || echo "arena: this pod runs at the default CPU share: it could not join $1" >&2; shift; exec "$@"`;
  return ["sh", "-c", script, "arena-pod-cpu", dir, ...command];
}
