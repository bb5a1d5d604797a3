import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultEnding } from "@/lib/evaluations/result-ending";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS } from "@/lib/sim-engine";
import { copyQwen3TokenizerFiles } from "@/lib/tokenizer/packaged-qwen3";
import type { AgentEvent } from "../agent/events";
import { LocalPodBackend } from "./local-pod-backend";

/**
 * Protocol section 7 (a candidate that dies scores 0) where the sandbox is missing and the candidate's engine shares
 * its agent's user: an engine that kills its own agent is the submission's fault, not a lost pod refunded.
 */
describe("a candidate engine that kills its agent, on a host without the sandbox", () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agent-killed-"));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it("is scored 0 with that reason: the agent's own events said the candidate was running", async () => {
    // a root-only folder: even as root, the engine user cannot reach this engine, so it runs as the agent's user
    const inputs = join(base, "inputs");
    await mkdir(join(inputs, "engine"), { recursive: true });
    await mkdir(join(inputs, "speculator"));
    await mkdir(join(inputs, "target"));
    await copyQwen3TokenizerFiles(join(inputs, "target"));
    await writeFile(join(inputs, "engine", "launch.sh"), '#!/usr/bin/env bash\nkill -KILL "$PPID"\n');
    await chmod(inputs, 0o700);
    const backend = new LocalPodBackend({
      stateDir: join(base, "state"),
      claimsDir: join(base, "claims"),
      sandbox: "off",
      agentEnv: { ARENA_ENGINE_RUNTIME: "sim", ARENA_SIM_ENGINE: SIM_ENGINE_BIN, SIM_SPEED: "50" },
    });
    const handle = await backend.start({
      evaluationId: "killer",
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
    const events: AgentEvent[] = [];
    for await (const event of handle.events) events.push(event);
    const exit = await handle.exited;

    expect(events[0]).toMatchObject({
      type: "log",
      level: "warn",
      message: expect.stringMatching(
        /^the engine sandbox lacks 12 of its 13 properties: .*processes-unsignalable.* \(the sandbox is turned off \(ENGINE_SANDBOX=off\)\)$/,
      ),
    });
    expect(events).toContainEqual({ type: "engine", engine: "candidate", state: "starting", seq: expect.any(Number) });
    const result = events.find((e) => e.type === "result");
    expect(result, JSON.stringify(events.slice(-4))).toEqual({
      type: "result",
      outcome: "scored",
      reason: "the candidate engine killed the pod agent (SIGKILL), which shares its user on this host",
      record: null,
    });
    expect(exit).toMatchObject({ kind: "failed", reason: "agent-crashed" });
    expect(resultEnding(result as Extract<AgentEvent, { type: "result" }>)).toEqual({
      status: "scored",
      specscore: 0,
      reason: "the candidate engine killed the pod agent (SIGKILL), which shares its user on this host",
      refund: false,
    });
    // nothing of the pod is left on the host but the operators' log of the engine's output
    expect(await backend.list()).toEqual([]);
  }, 60_000);
});
