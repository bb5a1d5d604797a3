import { describe, expect, it } from "vitest";
import { currentProtocol } from "../protocol";
import type { PodRun, PodRunOptions } from "../red-team/pod-run";
import { runCalibration } from "./run-calibration";

const env = { PATH: "/usr/bin:/bin" } as never;

/** What a stand-in pod comes back with: no record, and the agent's log lines given. */
const standInRun = (options: PodRunOptions, agentLog: string[] = []): PodRun => ({
  mode: options.mode,
  seed: options.seed,
  outcome: "error",
  reason: "a stand-in pod",
  record: null,
  wallSeconds: 1,
  logTail: null,
  agentLog,
});

describe("runCalibration's schedule", () => {
  it("runs every A/A pod before any reference's, each group up to the concurrency at once, and keeps the pods' warnings", async () => {
    const spans: { mode: string; start: number; end: number }[] = [];
    let clock = 0;
    let running = 0;
    let most = 0;
    const runPod = async (options: PodRunOptions): Promise<PodRun> => {
      const start = clock++;
      running++;
      most = Math.max(most, running);
      // pods end out of order: a later pod may end first
      await new Promise((r) => setTimeout(r, 5 + ((spans.length * 7) % 11)));
      running--;
      spans.push({ mode: options.mode, start, end: clock++ });
      return standInRun(options, [
        "info: started",
        "warn: 1 sampled replies went unanswered: fetch failed (ECONNRESET)",
      ]);
    };
    const seen: string[] = [];
    const report = await runCalibration({
      task: "qwen3-8b",
      profile: "ci",
      aa: 4,
      references: true,
      protocol: currentProtocol(),
      simSpeed: 1,
      concurrency: 3,
      env,
      runPod,
      onPod: (pod) => seen.push(...(pod.warnings ?? [])),
    });
    const aa = spans.filter((s) => s.mode === "stock");
    const refs = spans.filter((s) => s.mode !== "stock");
    expect(aa).toHaveLength(4);
    expect(refs.length).toBeGreaterThan(0);
    const lastAaEnd = Math.max(...aa.map((s) => s.end));
    for (const ref of refs) expect(ref.start, `${ref.mode} started beside an A/A pod`).toBeGreaterThan(lastAaEnd);
    expect(most).toBe(3);
    expect(seen).toEqual(
      Array(4 + refs.length).fill("warn: 1 sampled replies went unanswered: fetch failed (ECONNRESET)"),
    );
    expect(report.aa.runs.map((r) => r.seed)).toHaveLength(4);
    // every pod its own seed, references' after the A/A runs'
    const seeds = [...report.aa.runs, ...report.references].map((r) => r.seed);
    expect(new Set(seeds).size).toBe(seeds.length);
  });

  it("runs one group alone with the seeds the whole calibration gives it", async () => {
    const seen: { mode: string; seed: string }[] = [];
    const runPod = async (options: PodRunOptions): Promise<PodRun> => {
      seen.push({ mode: options.mode, seed: options.seed });
      return standInRun(options);
    };
    const common = {
      task: "qwen3-8b" as const,
      profile: "ci",
      aa: 4,
      references: true,
      protocol: currentProtocol(),
      simSpeed: 1,
      concurrency: 2,
      env,
      runPod,
    };
    await runCalibration(common);
    const whole = [...seen];
    seen.length = 0;
    await runCalibration({ ...common, only: "reference" });
    expect(seen).toEqual(whole.filter((p) => p.mode !== "stock"));
    seen.length = 0;
    await runCalibration({ ...common, only: "aa" });
    expect(seen).toEqual(whole.filter((p) => p.mode === "stock"));
  });
});
