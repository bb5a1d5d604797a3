import { describe, expect, it } from "vitest";
import { redTeamEnv } from "@/lib/red-team/env";
import { runPodFor } from "@/lib/red-team/pod-run";

/**
 * A whole pod agent, as an evaluation starts it, whose candidate is the simulated engine directory whose plugin/
 * cannot be installed: the candidate fails at its first start (charged), in the installer's words, before any pass.
 */
describe("a candidate whose plugin/ does not install", () => {
  it("fails the evaluation with the installer's message in the reason, the log tail and the evaluation's log", async () => {
    const run = await runPodFor({
      mode: "plugin-broken",
      seed: "plugin",
      profile: "ci",
      task: "qwen3-8b",
      simSpeed: 50,
      env: redTeamEnv(process.env),
    });
    const installer = "ERROR: lookahead.mjs cannot be loaded: Cannot find package 'sim-lookahead-kernels'";
    expect(run.outcome, `${run.reason}\n${run.logTail ?? ""}`).toBe("failed");
    expect(run.record).toBeNull();
    expect(run.reason).toMatch(/^the candidate.s plugin\/ did not install: the installer exited with 1: /);
    expect(run.reason).toContain(installer);
    expect(run.logTail).toMatch(/^\$ \S+\/sim-engine install-plugin \S+\/candidate\/plugin-source\n/);
    expect(run.agentLog.find((l) => l.startsWith("error: the candidate's plugin/ did not install"))).toContain(
      installer,
    );
  });
});
