import { describe, expect, it } from "vitest";
import { agentEnv } from "./env";

const required = {
  ARENA_EVALUATION_ID: "e1",
  ARENA_ATTEMPT: "1",
  ARENA_TASK: "qwen3-8b",
  ARENA_PROFILE: "ci",
  ARENA_SEED: "7",
  ARENA_ENGINE_DIR: "/arena/engine",
  ARENA_SPECULATOR_DIR: "/arena/speculator",
  ARENA_TARGET_DIR: "/arena/target",
  ARENA_STOCK_ENGINE_DIR: "/arena/stock-engine",
  ARENA_SCRATCH_DIR: "/scratch",
};

describe("agentEnv's image search paths", () => {
  it("keeps the image's PATH and LD_LIBRARY_PATH, dropping empty entries", () => {
    const env = agentEnv({
      ...required,
      PATH: "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/bin:/bin",
      // what `ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH` makes over an unset one
      LD_LIBRARY_PATH: "/usr/local/cuda/lib64:",
    });
    expect(env.PATH).toBe("/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/bin:/bin");
    expect(env.LD_LIBRARY_PATH).toBe("/usr/local/cuda/lib64");
  });

  it("leaves them unset when the agent has none, or only empty entries", () => {
    const env = agentEnv({ ...required, LD_LIBRARY_PATH: "::" });
    expect([env.PATH, env.LD_LIBRARY_PATH]).toEqual([undefined, undefined]);
  });

  it("refuses a relative directory, naming the variable", () => {
    expect(() => agentEnv({ ...required, PATH: "/usr/bin:node_modules/.bin" })).toThrow(
      /PATH: PATH must list absolute directories/,
    );
    expect(() => agentEnv({ ...required, LD_LIBRARY_PATH: "lib" })).toThrow(/LD_LIBRARY_PATH must list absolute/);
  });
});
