import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdir, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type {
  V1Container,
  V1ContainerStatus,
  V1EnvVar,
  V1Pod,
  V1PodStatus,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";
import { type CgroupLayout, createPodCgroup, killCgroup, podCgroupPlan, removePodCgroup } from "../../sandbox/cgroups";
import { AGENT_CONTAINER } from "../pod-spec";
import type { FakeKubeApi } from "./fake-kube-api";

/**
 * A kubelet for tests, on this machine, as root: it plays the pods the local API server (FakeKubeApi) is given, from
 * their spec alone. Each pod gets its own network (loopback only: what the evaluation NetworkPolicy leaves a pod),
 * IPC and UTS namespaces; each container its own mount and PID namespaces (the pod's `shareProcessNamespace: false`),
 * a root of its own (the image: the host's system folders and the image's files, read-only, with
 * `readOnlyRootFilesystem`), the pod's volumes at their mountPaths (emptyDirs as 0777 folders, as the kubelet makes
 * them; PVCs and subPaths as folders of this machine), its uid and gid with no capability and no_new_privs, the
 * environment and working directory of its spec, and a cgroup holding its memory limit and the node's pod pid limit.
 * Init containers run in order first; then the containers start in order. Statuses, phase and the agent container's
 * log go to the API server as a kubelet reports them.
 */
export interface StandInNode {
  /** Per image reference, the image's own files: container path → folder of this machine. */
  images: Record<string, Record<string, string>>;
  /** Per PersistentVolumeClaim name, the folder of this machine that holds it. */
  claims: Record<string, string>;
  /** Where the node keeps pods' emptyDirs and roots. */
  root: string;
  /** The memory and pids controllers (lib/pods/sandbox/cgroups.ts), or null for no limits. */
  cgroups: CgroupLayout | null;
  /** The kubelet's podPidsLimit. */
  podPidsLimit: number;
}

/** A line a container wrote, when the node read it. */
export interface ContainerLine {
  at: number;
  line: string;
}

const SYSTEM_DIRS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc"];
const DEVICES = ["null", "zero", "random", "urandom", "full"];
/** The PATH an image states when its Dockerfile says nothing (Docker's default). */
const IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

function parseQuantity(value: string): number {
  const match = /^([0-9.]+)([KMGTPE]i?)?$/.exec(value);
  if (!match) throw new Error(`the stand-in kubelet cannot read the quantity ${value}`);
  const units: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, K: 1e3, M: 1e6, G: 1e9 };
  return Math.round(Number(match[1]) * (match[2] ? (units[match[2]] ?? 1) : 1));
}

/** The processes whose parent is `pid` (a container's PID 1 is its `unshare`'s only child). */
async function childrenOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
    if (/^PPid:\s+(\d+)/m.exec(status)?.[1] === String(pid)) out.push(Number(name));
  }
  return out;
}

function signalKill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone already
  }
}

interface RunningContainer {
  name: string;
  process: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  cgroups: string[];
}

/** The cgroup a container of a pod runs in, under the node's cgroups (another node's pods are named alike). */
export function containerCgroupName(podUid: string, container: string): string {
  return `${STAND_IN_CGROUP_PREFIX}${podUid}-${container}`;
}

export const STAND_IN_CGROUP_PREFIX = "kubelet-stand-in-";

class PodRun {
  readonly statuses = new Map<string, V1ContainerStatus>();
  readonly initStatuses = new Map<string, V1ContainerStatus>();
  readonly output = new Map<string, ContainerLine[]>();
  private pause: ChildProcess | null = null;
  private readonly running = new Set<RunningContainer>();
  private ended = false;
  private deadline: NodeJS.Timeout | null = null;
  private reason: { reason: string; message: string } | null = null;

  constructor(
    private readonly api: FakeKubeApi,
    private readonly node: StandInNode,
    private readonly pod: V1Pod,
  ) {}

  get spec(): V1Pod["spec"] {
    return this.pod.spec;
  }

  get namespace(): string {
    return this.pod.metadata!.namespace!;
  }

  get name(): string {
    return this.pod.metadata!.name!;
  }

  get uid(): string {
    return this.pod.metadata!.uid!;
  }

  private dir(...parts: string[]): string {
    return join(this.node.root, "pods", this.uid, ...parts);
  }

  private report(phase: V1PodStatus["phase"]): void {
    if (!this.api.pod(this.namespace, this.name)) return;
    this.api.setPodStatus(this.namespace, this.name, {
      phase,
      ...(this.reason ?? {}),
      conditions: [{ type: "PodScheduled", status: "True" }],
      initContainerStatuses: [...this.initStatuses.values()],
      containerStatuses: [...this.statuses.values()],
    });
  }

  private setStatus(into: Map<string, V1ContainerStatus>, container: V1Container, state: V1ContainerStatus["state"]) {
    into.set(container.name, {
      name: container.name,
      image: container.image ?? "",
      imageID: "",
      ready: Boolean(state?.running),
      restartCount: 0,
      state,
    });
  }

  async run(): Promise<void> {
    const spec = this.pod.spec!;
    for (const c of spec.initContainers ?? [])
      this.setStatus(this.initStatuses, c, { waiting: { reason: "PodInitializing" } });
    for (const c of spec.containers) this.setStatus(this.statuses, c, { waiting: { reason: "PodInitializing" } });
    this.report("Pending");
    const volumes = await this.makeVolumes(spec.volumes ?? []);
    this.pause = spawn(
      "unshare",
      ["--net", "--ipc", "--uts", "--", "bash", "-c", "ip link set lo up && exec sleep infinity"],
      {
        stdio: "ignore",
      },
    );
    // the pod's sandbox is ready once its process holds a network namespace of its own, with loopback up
    const own = await readlink("/proc/self/ns/net");
    for (let i = 0; i < 100; i++) {
      const theirs = await readlink(`/proc/${this.pause.pid}/ns/net`).catch(() => own);
      if (theirs !== own) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 50));
    if (spec.activeDeadlineSeconds)
      this.deadline = setTimeout(() => {
        this.reason = {
          reason: "DeadlineExceeded",
          message: "Pod was active on the node longer than the specified deadline",
        };
        void this.kill();
      }, spec.activeDeadlineSeconds * 1000);

    for (const c of spec.initContainers ?? []) {
      this.setStatus(this.initStatuses, c, { running: { startedAt: new Date() } });
      this.report("Pending");
      const container = await this.start(c, volumes);
      const exit = await container.exited;
      const code = exit.code ?? 137;
      this.setStatus(this.initStatuses, c, {
        terminated: { exitCode: code, reason: code === 0 ? "Completed" : "Error" },
      });
      if (code !== 0 || this.ended) {
        this.report("Failed");
        return this.finish();
      }
    }
    const started: Array<{ c: V1Container; container: RunningContainer }> = [];
    for (const c of spec.containers) {
      if (this.ended) break;
      started.push({ c, container: await this.start(c, volumes) });
      this.setStatus(this.statuses, c, { running: { startedAt: new Date() } });
      this.report("Running");
    }
    await Promise.all(
      started.map(async ({ c, container }) => {
        const exit = await container.exited;
        const code = exit.code ?? 128 + 9;
        const oom = await this.oomKilled(container);
        this.setStatus(this.statuses, c, {
          terminated: { exitCode: code, reason: oom ? "OOMKilled" : code === 0 ? "Completed" : "Error" },
        });
        if (c.name === AGENT_CONTAINER) this.api.endLog(this.namespace, this.name);
        const all = [...this.statuses.values()].every((s) => s.state?.terminated);
        if (all) {
          const ok = [...this.statuses.values()].every((s) => s.state?.terminated?.exitCode === 0) && !this.reason;
          this.report(ok ? "Succeeded" : "Failed");
        } else this.report("Running");
      }),
    );
    await this.finish();
  }

  /**
   * Whether the container's memory limit killed any of its processes: containerd then reports the container
   * OOMKilled, whichever process it was (v1's memory.oom_control and v2's memory.events count them).
   */
  private async oomKilled(container: RunningContainer): Promise<boolean> {
    for (const dir of container.cgroups) {
      for (const file of ["memory.oom_control", "memory.events"]) {
        const text = await readFile(join(dir, file), "utf8").catch(() => "");
        if (Number(/oom_kill (\d+)/.exec(text)?.[1] ?? 0) > 0) return true;
      }
    }
    return false;
  }

  private async makeVolumes(volumes: V1Volume[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const v of volumes) {
      if (v.emptyDir) {
        const dir = this.dir("volumes", v.name);
        await mkdir(dir, { recursive: true });
        await chmod(dir, 0o777);
        out.set(v.name, dir);
      } else if (v.persistentVolumeClaim) {
        const host = this.node.claims[v.persistentVolumeClaim.claimName];
        if (!host) throw new Error(`the stand-in node has no claim ${v.persistentVolumeClaim.claimName}`);
        out.set(v.name, host);
      } else if (v.hostPath) out.set(v.name, v.hostPath.path);
      else throw new Error(`the stand-in kubelet mounts no volume like ${JSON.stringify(v)}`);
    }
    return out;
  }

  private mountLines(root: string, mounts: V1VolumeMount[], volumes: Map<string, string>): string[] {
    const lines: string[] = [];
    for (const m of mounts) {
      const base = volumes.get(m.name);
      if (!base) throw new Error(`no volume ${m.name}`);
      const source = m.subPath ? join(base, m.subPath) : base;
      const target = join(root, m.mountPath);
      lines.push(
        `if [ -d ${quote(source)} ]; then mkdir -p ${quote(target)}; else mkdir -p "$(dirname ${quote(target)})"; touch ${quote(target)}; fi`,
        `mount --bind ${quote(source)} ${quote(target)}`,
      );
      if (m.readOnly) lines.push(`mount -o remount,bind,ro ${quote(target)}`);
    }
    return lines;
  }

  private async start(c: V1Container, volumes: Map<string, string>): Promise<RunningContainer> {
    const image = this.node.images[c.image ?? ""];
    if (!image) throw new Error(`the stand-in node has no image ${c.image}`);
    const security = { ...this.pod.spec?.securityContext, ...c.securityContext };
    if (security.runAsUser === undefined || security.runAsUser === 0) throw new Error(`${c.name} would run as root`);
    const root = this.dir("roots", c.name);
    await mkdir(root, { recursive: true });

    const cgroups: string[] = [];
    if (this.node.cgroups) {
      const memory = c.resources?.limits?.memory;
      const plan = podCgroupPlan(this.node.cgroups, containerCgroupName(this.uid, c.name), {
        memoryBytes: memory ? parseQuantity(memory) : 64 * 2 ** 30,
        pids: this.node.podPidsLimit,
      });
      await createPodCgroup(plan);
      cgroups.push(...plan.enter);
    }

    const env: Record<string, string> = { PATH: IMAGE_PATH, HOSTNAME: this.name };
    for (const e of c.env ?? ([] as V1EnvVar[])) env[e.name] = e.value ?? "";
    const script = [
      "set -eu",
      ...cgroups.map((dir) => `echo $$ > ${quote(join(dir, "cgroup.procs"))}`),
      "mount --make-rprivate /",
      `mount -t tmpfs -o mode=0755 tmpfs ${quote(root)}`,
      ...SYSTEM_DIRS.map((d) =>
        [
          `if [ -L /${d} ]; then ln -s "$(readlink /${d})" ${quote(join(root, d))};`,
          `elif [ -d /${d} ]; then mkdir ${quote(join(root, d))}; mount --rbind /${d} ${quote(join(root, d))};`,
          `mount -o remount,bind,ro ${quote(join(root, d))}; fi`,
        ].join(" "),
      ),
      ...Object.entries(image).flatMap(([path, host]) => [
        `mkdir -p ${quote(join(root, path))}`,
        `mount --bind ${quote(host)} ${quote(join(root, path))}`,
        `mount -o remount,bind,ro ${quote(join(root, path))}`,
      ]),
      `mkdir ${quote(join(root, "proc"))} ${quote(join(root, "dev"))} ${quote(join(root, "dev/shm"))}`,
      `mount -t proc proc ${quote(join(root, "proc"))}`,
      ...DEVICES.flatMap((d) => [
        `touch ${quote(join(root, "dev", d))}`,
        `mount --bind /dev/${d} ${quote(join(root, "dev", d))}`,
      ]),
      `ln -s /proc/self/fd ${quote(join(root, "dev/fd"))}`,
      ...this.mountLines(root, c.volumeMounts ?? [], volumes),
      ...(security.readOnlyRootFilesystem ? [`mount -o remount,ro ${quote(root)}`] : []),
      [
        `exec chroot ${quote(root)} setpriv --reuid=${security.runAsUser} --regid=${security.runAsGroup ?? security.runAsUser}`,
        "--clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs --",
        `env -i ${c.workingDir ? `--chdir=${quote(c.workingDir)}` : ""}`,
        ...Object.entries(env).map(([k, v]) => quote(`${k}=${v}`)),
        ...[...(c.command ?? []), ...(c.args ?? [])].map(quote),
      ].join(" "),
    ].join("\n");
    const scriptFile = this.dir(`${c.name}.sh`);
    await writeFile(scriptFile, `${script}\n`, { mode: 0o700 });
    const pause = this.pause!.pid!;
    const child = spawn(
      "nsenter",
      [
        `--net=/proc/${pause}/ns/net`,
        `--ipc=/proc/${pause}/ns/ipc`,
        `--uts=/proc/${pause}/ns/uts`,
        "--",
        "unshare",
        "--mount",
        "--pid",
        "--fork",
        "--kill-child",
        "--",
        "bash",
        scriptFile,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const lines: ContainerLine[] = [];
    this.output.set(c.name, lines);
    for (const stream of [child.stdout!, child.stderr!]) {
      let rest = "";
      stream.on("data", (chunk: Buffer) => {
        if (c.name === AGENT_CONTAINER && this.api.pod(this.namespace, this.name))
          this.api.writeLog(this.namespace, this.name, chunk.toString());
        const split = (rest + chunk.toString()).split("\n");
        rest = split.pop() ?? "";
        for (const line of split) lines.push({ at: Date.now(), line });
      });
    }
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("close", (code, signal) => resolve({ code, signal })),
    );
    const running: RunningContainer = { name: c.name, process: child, exited, cgroups };
    this.running.add(running);
    void exited.then(() => this.running.delete(running));
    return running;
  }

  /**
   * Stops every container at once (pod deleted, deadline), as containerd does: SIGKILL to the container's PID 1 (its
   * PID namespace, all it holds, ends with it), then to whatever its cgroup still holds. Killing `unshare` alone is
   * not enough: its `--kill-child` is a parent-death signal, which the kernel clears once PID 1 takes the pod's uid.
   */
  async kill(): Promise<void> {
    await Promise.all(
      [...this.running].map(async (r) => {
        for (const pid of r.process.pid ? await childrenOf(r.process.pid) : []) signalKill(pid);
        r.process.kill("SIGKILL");
        if (r.cgroups.length > 0) await killCgroup(r.cgroups).catch(() => undefined);
      }),
    );
    await Promise.all([...this.running].map((r) => r.exited));
  }

  async finish(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (this.deadline) clearTimeout(this.deadline);
    await this.kill();
    this.pause?.kill("SIGKILL");
    if (this.node.cgroups) {
      for (const c of [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])]) {
        const plan = podCgroupPlan(this.node.cgroups, containerCgroupName(this.uid, c.name), {
          memoryBytes: 1,
          pids: 1,
        });
        await killCgroup(plan.enter).catch(() => undefined);
        await removePodCgroup(plan.enter).catch(() => undefined);
      }
    }
    await rm(this.dir("roots"), { recursive: true, force: true }).catch(() => undefined);
  }
}

export class KubeletStandIn {
  private readonly runs = new Map<string, PodRun>();
  private readonly done: Promise<void>[] = [];
  private timer: NodeJS.Timeout | null = null;
  readonly errors: string[] = [];

  constructor(
    private readonly api: FakeKubeApi,
    private readonly node: StandInNode,
  ) {}

  /** Looks for new and deleted pods every 100 ms, as a kubelet's watch would tell it. */
  start(): void {
    this.timer = setInterval(() => {
      for (const key of this.api.podNames()) {
        if (this.runs.has(key)) continue;
        const [ns, name] = key.split("/") as [string, string];
        const pod = this.api.pod(ns, name);
        if (!pod) continue;
        const run = new PodRun(this.api, this.node, structuredClone(pod));
        this.runs.set(key, run);
        this.done.push(
          run.run().catch(async (error: unknown) => {
            this.errors.push(`${key}: ${(error as Error).message}`);
            await run.finish();
          }),
        );
      }
      for (const [key, run] of this.runs) {
        const [ns, name] = key.split("/") as [string, string];
        if (!this.api.pod(ns, name)) void run.finish();
      }
    }, 100);
  }

  /** What a container of a pod wrote, line by line with when the node read it. */
  output(podName: string, container: string): ContainerLine[] {
    for (const [key, run] of this.runs) if (key.endsWith(`/${podName}`)) return run.output.get(container) ?? [];
    return [];
  }

  /** The uids of every pod this node played, deleted ones included. */
  podUids(): string[] {
    return [...this.runs.values()].map((run) => run.uid);
  }

  /** The spec a pod was played from (kept after the pod is deleted). */
  spec(podName: string): V1Pod["spec"] | undefined {
    for (const [key, run] of this.runs) if (key.endsWith(`/${podName}`)) return run.spec;
    return undefined;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const run of this.runs.values()) await run.finish();
    await Promise.allSettled(this.done);
  }
}
