import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalPodBackend } from "./local-pod-backend";
import { processAlive, processStartTicks } from "./process-alive";

describe("stopping a pod whose agent is gone and whose pid another process has taken", () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "stop-reused-pid-"));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it("signals nothing of that process, and still cleans up after the pod", async () => {
    // detached: a process group of its own, as a pod agent's is, so a wrong signal to -pid would reach it
    const stranger = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    await once(stranger, "spawn");
    const pid = stranger.pid!;
    const stateDir = join(base, "state");
    await mkdir(join(stateDir, "pods"), { recursive: true });
    const pidFile = join(stateDir, "pods", "local-gone-1.json");
    await writeFile(
      pidFile,
      JSON.stringify({
        podId: "local-gone-1",
        pid,
        // the pod's agent started before this process: the pid was reused
        startTicks: processStartTicks(pid)! - 1,
        evaluationId: "gone",
        attempt: 1,
        startedAt: new Date().toISOString(),
        workDir: join(base, "work"),
      }),
    );
    const backend = new LocalPodBackend({
      stateDir,
      claimsDir: join(base, "claims"),
      sandbox: "off",
      agentEnv: {},
      stopGraceMs: 200,
    });
    try {
      expect((await backend.list()).map((p) => p.phase)).toEqual(["unknown"]);
      await backend.stop("local-gone-1");
      expect(processAlive(pid)).toBe(true);
      expect(await backend.list()).toEqual([]);
    } finally {
      stranger.kill("SIGKILL");
    }
  });
});
