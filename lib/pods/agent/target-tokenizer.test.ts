import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentEnv } from "./env";
import type { AgentEvent } from "./events";
import { runPod } from "./run-pod";

/** A pod whose target directory holds no tokenizer is void at once: nothing can be counted or scored without it. */
describe("the pod agent and the target's tokenizer", () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), "pod-target-"));
    mkdirSync(join(base, "target"));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("ends the pod before any engine starts, void, its log naming the directory and the missing file", async () => {
    const events: AgentEvent[] = [];
    const env = agentEnv({
      ARENA_EVALUATION_ID: "no-tokenizer",
      ARENA_ATTEMPT: "1",
      ARENA_TASK: "qwen35-27b",
      ARENA_PROFILE: "ci",
      ARENA_SEED: "s",
      ARENA_ENGINE_DIR: join(base, "engine"),
      ARENA_SPECULATOR_DIR: join(base, "speculator"),
      ARENA_TARGET_DIR: join(base, "target"),
      ARENA_STOCK_ENGINE_DIR: join(base, "stock"),
      ARENA_SCRATCH_DIR: join(base, "scratch"),
      ARENA_ENGINE_RUNTIME: "sim",
    });
    await runPod(env, (e) => events.push(e), new AbortController().signal);
    // the operators' log names the directory and the file; the public reason names no server path
    expect(events).toEqual([
      {
        type: "log",
        level: "error",
        message: `the target's tokenizer: the tokenizer directory ${join(base, "target")} has no tokenizer.json`,
      },
      { type: "result", outcome: "void", reason: "the task's target has no usable tokenizer", record: null },
    ]);
    // nothing was prepared for an engine
    expect(existsSync(join(base, "scratch"))).toBe(false);
  });
});
