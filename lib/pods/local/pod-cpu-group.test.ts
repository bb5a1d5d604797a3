import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS } from "@/lib/sim-engine";
import { until } from "@/lib/testing/until";
import { copyQwen3TokenizerFiles } from "@/lib/tokenizer/packaged-qwen3";
import { cgroupPids, POD_CGROUP_PARENT } from "../sandbox/cgroups";
import { POD_CPU_SHARE } from "../sandbox/cpu-share";
import { LocalPodBackend } from "./local-pod-backend";

const ROOT = process.getuid?.() === 0;

/**
 * A local pod's processes run in the pods' CPU group, which holds POD_CPU_SHARE times a default group's CPU: on a
 * shared host (the embedded default, CI) its timed passes would otherwise take an equal share beside every other
 * session or service. Shown on this host's own cgroups with a real pod: its agent and its engine.
 */
describe("a local pod's CPU group, on this host's cgroups", () => {
  let base: string;
  let backend: LocalPodBackend;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "pod-cpu-group-"));
    // the engine user reaches the engine through the pod's read-only binds
    await chmod(base, 0o755);
    backend = new LocalPodBackend({
      stateDir: join(base, "state"),
      // the host's claims, as a worker's: a pod claimed elsewhere would be swept as dead by any worker starting one
      agentEnv: { ARENA_ENGINE_RUNTIME: "sim", ARENA_SIM_ENGINE: SIM_ENGINE_BIN, SIM_SPEED: "50" },
      stopGraceMs: 2000,
    });
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it(ROOT
    ? "holds the agent and the engine it starts, inside the pods' weighted parent, and goes with the pod"
    : "is not made where the worker is not root: the pod runs at the host's default share", async () => {
    const inputs = join(base, "inputs");
    for (const d of ["engine", "speculator", "target"]) await mkdir(join(inputs, d), { recursive: true });
    await copyQwen3TokenizerFiles(join(inputs, "target"));
    // an engine that never answers /health: it lives until the pod is stopped
    await writeFile(join(inputs, "engine", "launch.sh"), "#!/usr/bin/env bash\nexec sleep 300\n", { mode: 0o755 });
    const handle = await backend.start({
      evaluationId: "cpu",
      attempt: 1,
      taskId: "qwen3-8b",
      profile: "ci",
      seed: 1,
      engineDir: join(inputs, "engine"),
      speculatorDir: join(inputs, "speculator"),
      targetDir: join(inputs, "target"),
      stockEngineDir: join(SIM_ENGINE_DIRS, "stock"),
      deadlineSeconds: 120,
    });
    const podFile = JSON.parse(await readFile(join(base, "state", "pods", `${handle.podId}.json`), "utf8")) as {
      pid: number;
      cgroups: string[];
    };
    const cpuGroup = podFile.cgroups.find((d) => d.endsWith(`/agent-${handle.podId}`));
    try {
      const host = await backend.hostSandbox();
      if (!ROOT || !host.cpu) {
        expect(cpuGroup).toBeUndefined();
        expect(host.cpu ?? null).toBeNull();
        return;
      }
      expect(cpuGroup).toBe(join(host.cpu.root, POD_CGROUP_PARENT, `agent-${handle.podId}`));
      const parent = join(host.cpu.root, POD_CGROUP_PARENT);
      const weight = host.cpu.version === 1 ? "cpu.shares" : "cpu.weight";
      const unit = host.cpu.version === 1 ? 1024 : 100;
      expect(Number((await readFile(join(parent, weight), "utf8")).trim())).toBe(unit * POD_CPU_SHARE);
      // the process the backend spawned moves itself in before it execs the agent
      await until(async () => ((await cgroupPids(cpuGroup!)).includes(podFile.pid) ? true : undefined), 10_000);
      // the candidate's engine, started as the engine user into its own memory and pids cgroup
      const engineCgroup = podFile.cgroups[0]!;
      const enginePids = await until(async () => {
        const pids = await cgroupPids(engineCgroup);
        return pids.length > 0 ? pids : undefined;
      }, 30_000);
      for (const pid of enginePids) {
        const lines = (await readFile(`/proc/${pid}/cgroup`, "utf8")).split("\n");
        if (host.cpu.version === 1) {
          // v1: the cpu hierarchy is not the memory one; the engine stays in the group it was forked in
          const cpuLine = lines.find((l) => /^\d+:([^:]*,)?cpu(,[^:]*)?:/.test(l));
          expect(cpuLine, lines.join("\n")).toMatch(new RegExp(`:/${POD_CGROUP_PARENT}/agent-${handle.podId}$`));
        } else {
          // v2: one hierarchy; the engine's own cgroup lies under the same weighted parent
          expect(lines).toContain(`0::/${POD_CGROUP_PARENT}/${handle.podId}`);
        }
      }
    } finally {
      await backend.stop(handle.podId);
      await handle.exited;
    }
    // nothing of the pod's groups is left once it has ended
    if (!cpuGroup) return;
    const left = await readdir(join(cpuGroup, ".."));
    expect(left.filter((name) => name.includes(handle.podId))).toEqual([]);
  }, 90_000);
});
