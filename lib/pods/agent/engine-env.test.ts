import { describe, expect, it } from "vitest";
import { type EngineEnvInput, engineEnv, FALLBACK_PATH } from "./engine-env";
import { engineLogin, FALLBACK_LOGIN } from "./engine-login";
import { agentEnv } from "./env";

const IMAGE_PATH =
  "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const IMAGE_LD = "/usr/local/cuda/lib64:/usr/local/nvidia/lib:/usr/local/nvidia/lib64";

const base: EngineEnvInput = {
  taskId: "qwen3-8b",
  profile: "full",
  port: 41234,
  targetDir: "/arena/target",
  speculatorDir: "/arena/speculator",
  gpuMemoryUtilization: 0.9,
  homeDir: "/scratch/candidate-1",
  login: "arena-engine",
  image: { PATH: IMAGE_PATH, LD_LIBRARY_PATH: IMAGE_LD },
  simulated: {},
};

describe("engineEnv", () => {
  it("is exactly section 3's variables, what the image needs, and the no-network switches", () => {
    expect(engineEnv(base)).toEqual({
      PATH: IMAGE_PATH,
      LD_LIBRARY_PATH: IMAGE_LD,
      HOME: "/scratch/candidate-1",
      TMPDIR: "/scratch/candidate-1",
      USER: "arena-engine",
      LOGNAME: "arena-engine",
      HF_HUB_OFFLINE: "1",
      TRANSFORMERS_OFFLINE: "1",
      VLLM_NO_USAGE_STATS: "1",
      DO_NOT_TRACK: "1",
      TARGET: "/arena/target",
      ARTIFACT: "/arena/target",
      SPECULATOR: "/arena/speculator",
      TOKENIZER: "/arena/target",
      GENERATION_CONFIG: "/arena/target",
      PORT: "41234",
      SERVED_NAME: "Qwen/Qwen3-8B",
      MAX_MODEL_LEN: "40960",
      MAX_NUM_SEQS: "20",
      GPU_MEMORY_UTILIZATION: "0.90",
      PREFIX_CACHING: "1",
    });
  });

  it("says LANGUAGE_MODEL_ONLY on qwen35-27b, and its window and lanes", () => {
    const env = engineEnv({ ...base, taskId: "qwen35-27b", gpuMemoryUtilization: 0.8 });
    expect([env.LANGUAGE_MODEL_ONLY, env.MAX_MODEL_LEN, env.MAX_NUM_SEQS, env.SERVED_NAME]).toEqual([
      "1",
      "131072",
      "10",
      "Qwen/Qwen3.5-27B",
    ]);
    expect(env.GPU_MEMORY_UTILIZATION).toBe("0.80");
  });

  it("falls back to the system's PATH and leaves LD_LIBRARY_PATH out where the image states none", () => {
    const env = engineEnv({ ...base, image: {} });
    expect(env.PATH).toBe(FALLBACK_PATH);
    expect("LD_LIBRARY_PATH" in env).toBe(false);
  });

  it("adds the simulated runtime's settings, and nothing of the agent's own environment", () => {
    const agent = agentEnv({
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
      PATH: IMAGE_PATH,
      HUB_TOKEN: "hf_secret",
      AWS_SECRET_ACCESS_KEY: "secret",
    });
    const env = engineEnv({
      ...base,
      image: { PATH: agent.PATH, LD_LIBRARY_PATH: agent.LD_LIBRARY_PATH },
      simulated: { ARENA_SIM_ENGINE: "/repo/lib/sim-engine/bin/sim-engine", SIM_SPEED: "50" },
    });
    expect(env.PATH).toBe(IMAGE_PATH);
    expect(Object.keys(env).filter((k) => k.startsWith("ARENA_"))).toEqual(["ARENA_SIM_ENGINE"]);
    for (const leaked of ["hf_secret", "secret", "e1", "/scratch", "/arena/engine"])
      expect(Object.values(env)).not.toContain(leaked);
  });
});

describe("engineLogin", () => {
  it("is the engine user's name, the agent's own where engines run as the agent, or a fixed name", () => {
    expect(engineLogin({ uid: 999, gid: 999, name: "arena-engine-3" })).toBe("arena-engine-3");
    expect(engineLogin({ uid: 61234, gid: 61234, name: null })).toBe(FALLBACK_LOGIN);
    const asAgent = { uid: null, gid: null, name: null };
    expect(engineLogin(asAgent, () => "runner")).toBe("runner");
    // a pod's arbitrary uid has no passwd entry: os.userInfo() throws, and USER must still be set
    expect(engineLogin(asAgent, () => null)).toBe(FALLBACK_LOGIN);
  });
});
