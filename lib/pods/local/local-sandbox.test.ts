import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostSandbox, UNSHARE_FLAGS } from "../sandbox/host-sandbox";
import { POD_PATHS } from "../sandbox/mount-plan";
import type { PodLaunch } from "../types";
import { cleanupLocalPod, prepareLocalPod, sweepStalePodCgroups } from "./local-sandbox";

const agent = { command: "/usr/bin/node", args: ["--import", "tsx", "/repo/lib/pods/agent/main.ts"] };
const limits = { memoryBytes: 2 * 2 ** 30, pids: 512 };

describe("a local pod's sandbox, as the backend prepares it", () => {
  let base: string;
  let launch: PodLaunch;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "local-sandbox-"));
    for (const d of ["engine", "speculator", "target", "stock", "pools", "cgroup/memory", "cgroup/pids"])
      await mkdir(join(base, d), { recursive: true });
    await writeFile(join(base, "pools", "test.jsonl"), "");
    launch = {
      evaluationId: "e1",
      attempt: 2,
      taskId: "qwen3-8b",
      profile: "ci",
      seed: 1,
      engineDir: join(base, "engine"),
      speculatorDir: join(base, "speculator"),
      targetDir: join(base, "target"),
      stockEngineDir: join(base, "stock"),
      poolPath: join(base, "pools", "test.jsonl"),
      deadlineSeconds: 60,
    };
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it("on a host that has it all: the agent in its namespaces, pod-local paths, the cgroup's limit files written", async () => {
    const host: HostSandbox = {
      root: true,
      setpriv: true,
      cgroups: { version: 1, memory: join(base, "cgroup/memory"), pids: join(base, "cgroup/pids") },
      missing: {},
    };
    const workDir = join(base, "pods", "local-e1-2");
    const pod = await prepareLocalPod({
      podId: "local-e1-2",
      launch,
      host,
      settings: { limits, hide: [join(base, "pools"), "/usr", "/no/such/folder"] },
      workDir,
      logDir: join(base, "logs", "local-e1-2"),
      agent,
    });
    // nothing ties the pod to its worker (it outlives one killed outright, as a whole): no --pdeathsig
    expect([pod.command, ...pod.args]).toEqual([
      ...["unshare", ...UNSHARE_FLAGS, "--"],
      ...["bash", expect.stringMatching(/\/lib\/pods\/sandbox\/pod-init\.sh$/), agent.command, ...agent.args],
    ]);
    expect(pod.paths).toEqual({
      ARENA_ENGINE_DIR: POD_PATHS.engine,
      ARENA_SPECULATOR_DIR: POD_PATHS.speculator,
      ARENA_TARGET_DIR: POD_PATHS.target,
      ARENA_STOCK_ENGINE_DIR: POD_PATHS.stockEngine,
      ARENA_SCRATCH_DIR: POD_PATHS.scratch,
      ARENA_POOL_PATH: POD_PATHS.pool,
    });
    expect(pod.missing).toEqual([]);
    expect(pod.separateUser).toBe(true);
    expect(pod.sandbox).toMatchObject({
      loopback: true,
      privateDirs: ["/tmp", "/var/tmp", "/dev/shm"],
      logDir: POD_PATHS.logs,
    });
    // the pod's inputs are bound from where the worker sealed them; of the folders to hide, one under /tmp is gone
    // with the host's /tmp and one that does not exist needs nothing: the other gets an empty root-only tmpfs
    expect(pod.sandbox.mounts).toContainEqual(
      expect.objectContaining({ op: "bind", source: launch.engineDir, readOnly: true }),
    );
    expect(pod.sandbox.mounts).toContainEqual(
      expect.objectContaining({ op: "bind", source: launch.poolPath, readOnly: true }),
    );
    expect(pod.sandbox.mounts.filter((m) => m.op === "tmpfs" && m.readOnly)).toEqual([
      { op: "tmpfs", target: "/usr", mode: 0o700, readOnly: true },
    ]);
    expect(pod.sandbox.cgroups).toEqual([
      join(base, "cgroup/memory/arena-pods/local-e1-2"),
      join(base, "cgroup/pids/arena-pods/local-e1-2"),
    ]);
    expect(await readFile(join(base, "cgroup/pids/arena-pods/local-e1-2/pids.max"), "utf8")).toBe("512");
    expect(await readFile(join(base, "cgroup/memory/arena-pods/local-e1-2/memory.limit_in_bytes"), "utf8")).toBe(
      String(2 * 2 ** 30),
    );
    expect((await stat(workDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(workDir, "scratch"))).mode & 0o777).toBe(0o755);
    await cleanupLocalPod(pod.cleanup).catch(() => undefined);
    await expect(stat(workDir)).rejects.toThrow();
  });

  it("on a host without namespaces: the agent on the host's paths, every missing property named", async () => {
    const why = "unshare could not make the pod's namespaces: unshare: unshare failed: Operation not permitted";
    const host: HostSandbox = {
      root: true,
      setpriv: true,
      cgroups: null,
      missing: { namespaces: why, "engine-user": why, "cgroup-memory": "x", "cgroup-pids": "x" },
    };
    const pod = await prepareLocalPod({
      podId: "local-e1-3",
      launch,
      host,
      settings: { limits, hide: [] },
      workDir: join(base, "pods", "local-e1-3"),
      logDir: join(base, "logs", "local-e1-3"),
      agent,
    });
    expect([pod.command, ...pod.args]).toEqual([agent.command, ...agent.args]);
    expect(pod.paths.ARENA_ENGINE_DIR).toBe(launch.engineDir);
    expect(pod.paths.ARENA_SCRATCH_DIR).toBe(join(base, "pods", "local-e1-3", "scratch"));
    expect(pod.sandbox).toEqual({
      mounts: [],
      loopback: false,
      cgroups: [],
      privateDirs: [],
      logDir: join(base, "logs", "local-e1-3"),
    });
    expect(pod.separateUser).toBe(false);
    expect(pod.missing.map((m) => m.property)).toContain("network-loopback-only");
    expect(pod.missing.find((m) => m.property === "no-pool")?.why).toBe(why);
  });

  it("starts the agent inside the pods' CPU group where the host has one, and leaves it out where it is turned off", async () => {
    const cpuRoot = join(base, "cgroup-cpu");
    await mkdir(cpuRoot, { recursive: true });
    const host: HostSandbox = {
      root: true,
      setpriv: true,
      cgroups: null,
      cpu: { version: 1, root: cpuRoot },
      missing: {},
    };
    const prepare = (podId: string, cpuGroup?: boolean) =>
      prepareLocalPod({
        podId,
        launch,
        host,
        settings: { limits, hide: [], ...(cpuGroup === undefined ? {} : { cpuGroup }) },
        workDir: join(base, "pods", podId),
        logDir: join(base, "logs", podId),
        agent,
      });
    const grouped = await prepare("local-e1-4");
    const dir = join(cpuRoot, "arena-pods", "agent-local-e1-4");
    expect(grouped.cpu).toEqual({ group: dir });
    expect(await readFile(join(cpuRoot, "arena-pods", "cpu.shares"), "utf8")).toBe("10240");
    // the spawned shell joins the group, then execs the pod's own command line unchanged
    expect([grouped.command, ...grouped.args.slice(0, 4)]).toEqual([
      "sh",
      "-c",
      expect.any(String),
      "arena-pod-cpu",
      dir,
    ]);
    expect(grouped.args.slice(4)).toEqual([
      "unshare",
      ...UNSHARE_FLAGS,
      "--",
      "bash",
      expect.any(String),
      agent.command,
      ...agent.args,
    ]);
    expect(grouped.cleanup.cgroups).toEqual([dir]);

    const off = await prepare("local-e1-5", false);
    expect(off.cpu).toEqual({ why: "the pods' CPU group is turned off" });
    expect(off.command).toBe("unshare");
    expect(off.cleanup.cgroups).toEqual([]);
  });

  it("sweeps the cgroups of pods that no longer live, and no other", async () => {
    const root = join(base, "sweep");
    for (const controller of ["memory", "pids"])
      for (const name of ["local-live-1", "local-dead-1", "someone-else"])
        await mkdir(join(root, controller, "arena-pods", name), { recursive: true });
    const removed = await sweepStalePodCgroups(
      { version: 1, memory: join(root, "memory"), pids: join(root, "pids") },
      new Set(["local-live-1"]),
    );
    expect(removed).toEqual([
      join(root, "memory", "arena-pods", "local-dead-1"),
      join(root, "pids", "arena-pods", "local-dead-1"),
    ]);
    expect((await readdir(join(root, "pids", "arena-pods"))).sort()).toEqual(["local-live-1", "someone-else"]);
  });

  it("sweeps the CPU groups of pods that no longer live, named for their pod, and no other", async () => {
    const root = join(base, "sweep-cpu");
    for (const name of ["agent-local-live-1", "agent-local-dead-1", "agent-someone-else", "local-dead-2"])
      await mkdir(join(root, "cpu", "arena-pods", name), { recursive: true });
    const removed = await sweepStalePodCgroups(null, new Set(["local-live-1"]), join(root, "cpu"));
    expect(removed.sort()).toEqual([
      join(root, "cpu", "arena-pods", "agent-local-dead-1"),
      join(root, "cpu", "arena-pods", "local-dead-2"),
    ]);
    expect((await readdir(join(root, "cpu", "arena-pods"))).sort()).toEqual([
      "agent-local-live-1",
      "agent-someone-else",
    ]);
  });
});
