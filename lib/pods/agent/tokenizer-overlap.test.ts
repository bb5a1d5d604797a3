import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_TOKENIZER_DIR } from "../../tokenizer/fixtures/build-fixture";
import { agentEnv } from "./env";
import type { AgentEvent } from "./events";
import { runPod } from "./run-pod";

/**
 * The target's tokenizer loads while the candidate engine starts (its seconds are not the pod's alone): its files are
 * checked before any engine starts, the load itself follows the engine's process.
 */
describe("the pod agent's tokenizer and the candidate's start", () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), "pod-tokenizer-overlap-"));
    // an engine that exits at once: the candidate's start fails right after its process begins
    for (const name of ["engine", "stock"]) {
      mkdirSync(join(base, name));
      writeFileSync(join(base, name, "launch.sh"), "#!/usr/bin/env bash\necho 'no device here' >&2\nexit 3\n");
      chmodSync(join(base, name, "launch.sh"), 0o755);
    }
    mkdirSync(join(base, "speculator"));
    // the engine's user (when the agent is root) must reach them
    for (const dir of ["", "engine", "stock", "speculator"]) chmodSync(join(base, dir), 0o755);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const podEnv = (targetDir: string) =>
    agentEnv({
      ARENA_EVALUATION_ID: "tokenizer-overlap",
      ARENA_ATTEMPT: "1",
      ARENA_TASK: "qwen3-8b",
      ARENA_PROFILE: "ci",
      ARENA_SEED: "s",
      ARENA_ENGINE_DIR: join(base, "engine"),
      ARENA_SPECULATOR_DIR: join(base, "speculator"),
      ARENA_TARGET_DIR: targetDir,
      ARENA_STOCK_ENGINE_DIR: join(base, "stock"),
      ARENA_SCRATCH_DIR: join(base, "scratch"),
      ARENA_ENGINE_RUNTIME: "sim",
    });

  it("loads the tokenizer after the candidate's process started, and still scores its failed start", async () => {
    const events: AgentEvent[] = [];
    await runPod(podEnv(FIXTURE_TOKENIZER_DIR), (e) => events.push(e), new AbortController().signal);
    const at = (match: (e: AgentEvent) => boolean) => events.findIndex(match);
    const starting = at((e) => e.type === "engine" && e.state === "starting");
    const counting = at((e) => e.type === "log" && e.message.startsWith("counting with the target's tokenizer: "));
    const failed = at((e) => e.type === "engine" && e.state === "start-failed");
    expect(starting).toBeGreaterThanOrEqual(0);
    expect(counting).toBeGreaterThan(starting);
    expect(failed).toBeGreaterThan(starting);
    expect(events.at(-1)).toMatchObject({
      type: "result",
      outcome: "scored",
      reason: expect.stringMatching(/^the candidate engine did not start: the engine exited before it was healthy/),
    });
  });

  it("voids the pod when the tokenizer its files promised does not load, whatever the candidate did", async () => {
    // files that pass the check before the start (they exist), a tokenizer.json that cannot be loaded
    const broken = join(base, "broken-target");
    cpSync(FIXTURE_TOKENIZER_DIR, broken, { recursive: true });
    writeFileSync(join(broken, "tokenizer.json"), "{}");
    const events: AgentEvent[] = [];
    await runPod(podEnv(broken), (e) => events.push(e), new AbortController().signal);
    expect(events.some((e) => e.type === "engine" && e.state === "start-failed")).toBe(true);
    expect(events.at(-2)).toMatchObject({
      type: "log",
      level: "error",
      message: expect.stringMatching(/^the target's tokenizer: /),
    });
    expect(events.at(-1)).toEqual({
      type: "result",
      outcome: "void",
      reason: "the task's target has no usable tokenizer",
      record: null,
    });
  });
});
