import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { type CgroupLayout, cgroupLayout } from "./cgroups";
import { type CpuCgroupRoot, cpuCgroupRoot } from "./cpu-share";
import type { SandboxMechanism } from "./properties";

const run = promisify(execFile);

/** The system's folders, whatever the worker's own PATH holds: `ip` lives in /usr/sbin on Debian. */
export const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The namespaces a local pod gets: its own network (loopback only), PIDs, mounts, IPC and hostname. */
export const UNSHARE_FLAGS = [
  "--net",
  "--pid",
  "--fork",
  "--kill-child=SIGKILL",
  "--mount",
  "--ipc",
  "--uts",
  "--mount-proc",
  "--propagation",
  "private",
] as const;

/** What this host lets the local backend build, each mechanism with why it is missing (absent: available). */
export interface HostSandbox {
  root: boolean;
  /** `setpriv` (util-linux): the pod dies with its worker (PR_SET_PDEATHSIG), engines drop to their user from root. */
  setpriv: boolean;
  cgroups: CgroupLayout | null;
  /** Where the pods' CPU group can be made (root only); absent or null: pods run at the host's default share. */
  cpu?: CpuCgroupRoot | null;
  missing: Partial<Record<SandboxMechanism, string>>;
}

export interface HostProbeOptions {
  /** ENGINE_SANDBOX=off: nothing is built, and the evaluation's log says so. */
  off?: boolean;
  isRoot?: boolean;
  /** Runs a command, resolving with its stderr's first line on failure (a stand-in in tests). */
  exec?: (command: string, args: readonly string[]) => Promise<{ ok: true } | { ok: false; why: string }>;
  mountinfo?: () => Promise<string>;
  controllersOf?: (root: string) => string | null;
}

async function execute(command: string, args: readonly string[]): Promise<{ ok: true } | { ok: false; why: string }> {
  try {
    await run(command, [...args], { timeout: 10_000, env: { PATH: SYSTEM_PATH } as unknown as NodeJS.ProcessEnv });
    return { ok: true };
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT") return { ok: false, why: `${command} is not installed` };
    const line = (e.stderr ?? "").trim().split("\n")[0] || e.message;
    return { ok: false, why: line };
  }
}

const readControllers = (root: string) => {
  try {
    return readFileSync(join(root, "cgroup.controllers"), "utf8");
  } catch {
    return null;
  }
};

/**
 * Probes once what a local pod's sandbox can be made of on this host: root, `setpriv`, namespaces (by making them:
 * `unshare` with every flag a pod uses, bringing its loopback up), and where the memory and pids controllers are.
 */
export async function probeHostSandbox(options: HostProbeOptions = {}): Promise<HostSandbox> {
  const all: SandboxMechanism[] = ["engine-user", "namespaces", "cgroup-memory", "cgroup-pids"];
  if (options.off) {
    const why = "the sandbox is turned off (ENGINE_SANDBOX=off)";
    return { root: false, setpriv: false, cgroups: null, missing: Object.fromEntries(all.map((m) => [m, why])) };
  }
  const exec = options.exec ?? execute;
  const root = options.isRoot ?? process.getuid?.() === 0;
  const setpriv = (await exec("setpriv", ["--pdeathsig", "SIGKILL", "--", "true"])).ok;
  if (!root) {
    const why = "the worker does not run as root";
    return { root, setpriv, cgroups: null, missing: Object.fromEntries(all.map((m) => [m, why])) };
  }
  const missing: Partial<Record<SandboxMechanism, string>> = {};
  const namespaces = await exec("unshare", [...UNSHARE_FLAGS, "--", "ip", "link", "set", "lo", "up"]);
  if (!namespaces.ok) {
    missing.namespaces = `unshare could not make the pod's namespaces: ${namespaces.why}`;
    // without its own mounts, the engine user reaches no input under the root-only data folder
    missing["engine-user"] = missing.namespaces;
  }
  if (!setpriv) {
    missing["engine-user"] ??= "setpriv (util-linux) is not installed";
  }
  const mountinfo = await (options.mountinfo ?? (() => readFile("/proc/self/mountinfo", "utf8")))().catch(() => "");
  const layout = cgroupLayout(mountinfo, options.controllersOf ?? readControllers);
  const offers = (c: "memory" | "pids") =>
    layout !== null && (layout.version === 2 ? layout.controllers.includes(c) : layout[c] !== null);
  for (const [controller, mechanism] of [
    ["memory", "cgroup-memory"],
    ["pids", "cgroup-pids"],
  ] as const) {
    if (!setpriv) missing[mechanism] = "setpriv (util-linux) is not installed";
    else if (!offers(controller)) missing[mechanism] = `no ${controller} cgroup controller is mounted`;
  }
  const cpu = cpuCgroupRoot(mountinfo, options.controllersOf ?? readControllers);
  return { root, setpriv, cgroups: layout, cpu, missing };
}
