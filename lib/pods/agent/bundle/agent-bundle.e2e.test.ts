import { chmod, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GATE_REASONS } from "@/lib/gates/record/reasons";
import { allowedMemoryMib, currentProtocol, WORKLOAD_IDS } from "@/lib/protocol";
import { redTeamEnv } from "@/lib/red-team/env";
import { runPodFor } from "@/lib/red-team/pod-run";
import { JUDGE_NODE_FLAGS } from "../../../judge/run/node-flags";
import { AGENT_BUNDLE_ENTRY, buildAgentBundle } from "./build-agent-bundle";

/**
 * The bundle a Kubernetes pod runs (k8s/README.md): built outside the repository, started by its own Node with no
 * node_modules anywhere above it, it plays a whole evaluation pod and reports a result record and its log, as the
 * agent from source does.
 */
describe("the pod agent bundle", () => {
  let base: string;
  let bundle: string;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agent-bundle-"));
    // the red-team runner starts a root caller's agent as an unprivileged user, which must read the bundle
    await chmod(base, 0o755);
    bundle = join(base, "pod-agent");
    await buildAgentBundle(bundle, { node: "link" });
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("holds the agent, its token worker, the tokenizer and the dev pool, and no node_modules", async () => {
    expect(await readdir(bundle)).toEqual(
      expect.arrayContaining(["data", "node", AGENT_BUNDLE_ENTRY, "qwen3-tokenizer", "token-worker.mjs"]),
    );
    expect(await readdir(bundle)).not.toContain("node_modules");
    const code = await readFile(join(bundle, AGENT_BUNDLE_ENTRY), "utf8");
    // every package is inside: no import of anything but Node's own modules and the bundle's files
    const imports = [...code.matchAll(/^\s*import\s[^;]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1]!);
    expect(imports.filter((i) => !i.startsWith("node:"))).toEqual([]);
  });

  it(
    "runs a whole evaluation pod from outside the repository, logs why check requests went unanswered, and records each engine's device memory over its timed passes",
    async () => {
      // the simulated engine's "failing" mode fails a tenth of its requests, from a fixed seed: on a fresh engine the
      // fourth request errs, so the candidate's restart for the checks leaves its fourth greedy probe unanswered
      const run = await runPodFor({
        mode: "failing",
        seed: "bundle",
        profile: "ci",
        task: "qwen3-8b",
        simSpeed: 2,
        env: redTeamEnv(process.env),
        agent: {
          command: join(bundle, "node"),
          args: [...JUDGE_NODE_FLAGS, join(bundle, AGENT_BUNDLE_ENTRY)],
          cwd: base,
        },
      });
      // a failed gate is a measurement scored 0, with its reason (protocol section 5)
      expect(run.outcome, `${run.reason}\n${run.logTail ?? ""}`).toBe("scored");
      expect(run.record).not.toBeNull();
      expect(run.record!.score).toBe(0);
      for (const w of WORKLOAD_IDS) expect(run.record!.ratios[w].passes.length).toBe(3);
      // one of eight probes is more than the 10% a check may leave unanswered
      expect(run.reason).toBe(GATE_REASONS.answers);
      const note = run.agentLog.find((l) => l.includes("greedy probes unanswered"));
      expect(note, run.agentLog.join("\n")).toMatch(
        /^warn: the candidate left 1 of 8 greedy probes unanswered \(#4: engine answered 5\d\d: .+\)$/,
      );
      // the stock engine answered everything: no note names it
      expect(run.agentLog.filter((l) => l.includes("the stock engine left"))).toEqual([]);

      // device memory over the pod (the simulated engine writes what it holds where the agent's probe reads it):
      // both engines' timed passes sampled, each engine's peak in the record, only the candidate's passes gated
      const memory = run.record!.memory;
      const device = 183_359;
      const limit = allowedMemoryMib(
        device,
        currentProtocol().engine.gpuMemoryUtilization,
        currentProtocol().tasks["qwen3-8b"].gates.memorySlackMib.value,
      );
      expect(memory).toMatchObject({ ok: true, device_mib: device, startup_peak_mib: expect.any(Number) });
      expect(memory.allowed_mib).toBeCloseTo(limit, 0);
      expect(memory.peak_mib).toBeGreaterThan(0);
      // the simulated stock engine peaks about 1 GiB under the limit (protocol section 7), as vLLM's does
      expect(memory.stock_peak_mib).toBeGreaterThan(limit - 4096);
      expect(memory.stock_peak_mib).toBeLessThanOrEqual(limit);
    },
    10 * 60_000,
  );
});
