import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineEnv } from "../pods/agent/engine-env";
import { FALLBACK_LOGIN } from "../pods/agent/engine-login";
import { startEngine, stopEngine } from "../pods/agent/engine-process";
import type { EngineIdentity } from "../pods/agent/engine-user";
import { freePort } from "../pods/agent/free-port";
import { flagValue, makeStandInVllm, type StandInRecord } from "../pods/testing/stand-in-vllm";
import { TASK_IDS, type TaskId } from "../protocol";
import { EXAMPLE_ENGINES, VLLM_EAGLE3_LAUNCH } from "./examples";

// The guide's launch.sh for vLLM with a speculator, started as the arena starts an engine, on the stand-in vllm
// (which parses its flags as vLLM 0.25's parser declares them and refuses a --speculative-config vLLM would refuse):
// the stock engine's command line plus an EAGLE-3 speculative config naming $SPECULATOR.

const STOCK = fileURLToPath(new URL("../pods/stock-engines/vllm/", import.meta.url));
const asAgent: EngineIdentity = { uid: null, gid: null, name: null };
let root: string;
let speculatorDir: string;
let runs = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "guide-launch-"));
  await chmod(root, 0o755);
  speculatorDir = join(root, "speculator");
  await mkdir(speculatorDir);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function recordOf(engineDir: string, taskId: TaskId): Promise<StandInRecord> {
  runs += 1;
  const standIn = await makeStandInVllm(join(root, `vllm-${runs}`));
  const scratch = join(root, `engine-${runs}`);
  const env = engineEnv({
    taskId,
    profile: "full",
    port: await freePort(),
    targetDir: join(root, "target"),
    speculatorDir,
    gpuMemoryUtilization: 0.9,
    homeDir: scratch,
    login: FALLBACK_LOGIN,
    image: { PATH: `${standIn.binDir}:/usr/bin:/bin` },
    simulated: {},
  });
  const engine = await startEngine({ role: "candidate", engineDir, scratchDir: scratch, env, identity: asAgent });
  try {
    return await standIn.firstRecord();
  } finally {
    await stopEngine(engine, asAgent, 5_000, scratch);
  }
}

describe("the guide's engine directories", () => {
  it("serves vLLM with the stock engine's flags and an EAGLE-3 speculator from $SPECULATOR, on every task", async () => {
    const dir = join(root, "guide-engine");
    await mkdir(dir);
    await writeFile(join(dir, "launch.sh"), VLLM_EAGLE3_LAUNCH, { mode: 0o755 });
    for (const taskId of TASK_IDS) {
      const stock = await recordOf(STOCK, taskId);
      const guide = await recordOf(dir, taskId);
      const port = flagValue(guide.argv, "--port")!;
      expect(guide.argv.slice(0, -2), taskId).toEqual(
        stock.argv.map((a, i) => (stock.argv[i - 1] === "--port" ? port : a)),
      );
      expect(guide.argv.at(-2)).toBe("--speculative-config");
      expect(JSON.parse(flagValue(guide.argv, "--speculative-config")!)).toEqual({
        method: "eagle3",
        model: speculatorDir,
        num_speculative_tokens: 4,
      });
    }
  });

  it("ships each example as a launch.sh that serves and refuses anything but serve", () => {
    expect(EXAMPLE_ENGINES.map((e) => e.name)).toEqual(["vllm-eagle3", "sim-eagle", "sim-quantized"]);
    for (const example of EXAMPLE_ENGINES) {
      expect(example.launch.startsWith("#!/usr/bin/env bash\n"), example.name).toBe(true);
      expect(example.launch).toMatch(/serve\)\s+(#.*\n\s+)*[\s\S]*exec /);
      expect(example.launch).toContain('echo "usage: launch.sh serve" >&2');
    }
  });
});
