import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPodCgroup } from "./cgroups";
import { cpuCgroupRoot, joinCpuGroupCommand, podCpuPlan, podOfGroup } from "./cpu-share";

// This machine's and CI's mountinfo: cgroup v1 hierarchies per controller, a cgroup2 at unified with no controller.
const HYBRID = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`;
// systemd's v1 layout joins cpu and cpuacct in one hierarchy
const JOINED = `32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,cpu,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset`;
// A fresh Debian 12 host: systemd mounts the one cgroup2 hierarchy at /sys/fs/cgroup.
const DEBIAN = `35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate`;

const controllers = (offered: Record<string, string>) => (root: string) => offered[root] ?? null;

describe("where the cpu controller is", () => {
  it("finds v1's cpu hierarchy, alone or joined with cpuacct, never cpuset's or cpuacct's", () => {
    expect(cpuCgroupRoot(HYBRID, controllers({ "/sys/fs/cgroup/unified": "" }))).toEqual({
      version: 1,
      root: "/sys/fs/cgroup/cpu",
    });
    expect(cpuCgroupRoot(JOINED, controllers({}))).toEqual({ version: 1, root: "/sys/fs/cgroup/cpu,cpuacct" });
    const withoutCpu = HYBRID.split("\n").filter((line) => !line.includes(" /sys/fs/cgroup/cpu "));
    expect(cpuCgroupRoot(withoutCpu.join("\n"), controllers({}))).toBeNull();
  });

  it("finds v2 where the cgroup2 mount offers cpu, and nothing where it does not", () => {
    expect(cpuCgroupRoot(DEBIAN, controllers({ "/sys/fs/cgroup": "cpuset cpu io memory pids\n" }))).toEqual({
      version: 2,
      root: "/sys/fs/cgroup",
    });
    expect(cpuCgroupRoot(DEBIAN, controllers({ "/sys/fs/cgroup": "cpuset io memory pids" }))).toBeNull();
  });
});

describe("a pod's CPU group", () => {
  it("on v1: the pods' parent holds ten default groups' shares, the pod's agent a group of its own inside it", () => {
    expect(podCpuPlan({ version: 1, root: "/cg/cpu" }, "local-e1-2")).toEqual({
      create: ["/cg/cpu/arena-pods"],
      writes: [{ path: "/cg/cpu/arena-pods/cpu.shares", value: "10240" }],
      enter: ["/cg/cpu/arena-pods/agent-local-e1-2"],
      limits: [],
    });
  });

  it("on v2: the root hands the parent its cpu controller before the parent's weight is set", () => {
    expect(podCpuPlan({ version: 2, root: "/cg" }, "local-e1-2")).toEqual({
      create: ["/cg/arena-pods"],
      writes: [
        { path: "/cg/cgroup.subtree_control", value: "+cpu" },
        { path: "/cg/arena-pods/cpu.weight", value: "1000" },
      ],
      enter: ["/cg/arena-pods/agent-local-e1-2"],
      limits: [],
    });
  });

  it("refuses a pod id unfit for a folder's name, and names the pod of either of its folders", () => {
    expect(() => podCpuPlan({ version: 1, root: "/cg/cpu" }, "../escape")).toThrow(/unfit for a cgroup's name/);
    expect(podOfGroup("agent-local-e1-2")).toBe("local-e1-2");
    expect(podOfGroup("local-e1-2")).toBe("local-e1-2");
  });
});

describe("making the group and joining it", () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "cpu-share-"));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it("makes each folder before the file written in it, and the pod's own last", async () => {
    const root = join(base, "v2");
    await mkdir(root);
    const plan = podCpuPlan({ version: 2, root }, "local-e1-2");
    await createPodCgroup(plan);
    expect(await readFile(join(root, "cgroup.subtree_control"), "utf8")).toBe("+cpu");
    expect(await readFile(join(root, "arena-pods", "cpu.weight"), "utf8")).toBe("1000");
    expect(await readFile(join(plan.enter[0]!, "..", "cpu.weight"), "utf8")).toBe("1000");
  });

  const run = (argv: string[]) =>
    new Promise<{ pid: number; stdout: string; stderr: string; code: number | null }>((resolve) => {
      const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.stderr.on("data", (c) => (stderr += c));
      child.on("exit", (code) => resolve({ pid: child.pid!, stdout, stderr, code }));
    });

  it("writes the spawned process's own pid into the group before it execs the command, which keeps that pid", async () => {
    const dir = join(base, "group");
    await mkdir(dir);
    await writeFile(join(dir, "cgroup.procs"), "");
    const ran = await run(joinCpuGroupCommand(dir, ["sh", "-c", "echo $$; echo $0", "the-command"]));
    expect(ran.code).toBe(0);
    expect(ran.stdout.split("\n")).toEqual([String(ran.pid), "the-command", ""]);
    expect((await readFile(join(dir, "cgroup.procs"), "utf8")).trim()).toBe(String(ran.pid));
    expect(ran.stderr).toBe("");
  });

  it("still runs the command where the group cannot be joined, and says so on its error output", async () => {
    const dir = join(base, "no-such-group");
    const ran = await run(joinCpuGroupCommand(dir, ["sh", "-c", "echo ran"]));
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe("ran\n");
    expect(ran.stderr).toBe(`arena: this pod runs at the default CPU share: it could not join ${dir}\n`);
  });
});
