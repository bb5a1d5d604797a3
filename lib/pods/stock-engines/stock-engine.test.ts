import { chmod, cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getProfile, getTask, maxNumSeqs, type TaskId } from "@/lib/protocol";
import { streamChat } from "@/lib/sim-engine/testing/client";
import { copyQwen3TokenizerFiles } from "@/lib/tokenizer/packaged-qwen3";
import { engineEnv } from "../agent/engine-env";
import { engineLogin } from "../agent/engine-login";
import { type RunningEngine, startEngine, stopEngine, waitHealthy } from "../agent/engine-process";
import type { EngineIdentity } from "../agent/engine-user";
import { freePort } from "../agent/free-port";
import { installPlugin } from "../agent/plugin-install";
import { makeStandInVllm, type StandInVllm, VLLM_PLUGIN_FIXTURES } from "../testing/stand-in-vllm";

const STOCK_ENGINE_DIR = fileURLToPath(new URL("./vllm/", import.meta.url));
// An unused uid with no passwd entry, as a pod's arbitrary uid is (the tests run as root); this file's own, since
// stopping an engine kills every process of its user.
const UID = 61234;
const noPasswd: EngineIdentity = { uid: UID, gid: UID, name: null };
const asAgent: EngineIdentity = { uid: null, gid: null, name: null };
// bash exports PWD, SHLVL and _ to what it execs, and Python sets LC_CTYPE in its own environment under the C
// locale (PEP 538); nothing else may reach the engine beyond engineEnv's
const RUNTIME_ADDED = ["PWD", "SHLVL", "_", "LC_CTYPE"];

let root: string;
let targetDir: string;
let noSpeculatorDir: string;
let runs = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "stock-vllm-"));
  await chmod(root, 0o755);
  targetDir = join(root, "target");
  await mkdir(targetDir, { mode: 0o755 });
  // the sealed target: the simulated engine behind the stand-in reads its tokenizer, as vLLM would
  await copyQwen3TokenizerFiles(targetDir);
  noSpeculatorDir = join(root, "no-speculator");
  await mkdir(noSpeculatorDir);
  await chmod(noSpeculatorDir, 0o555);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Run {
  standIn: StandInVllm;
  scratch: string;
  env: Record<string, string>;
  port: number;
}

async function prepare(taskId: TaskId, identity: EngineIdentity): Promise<Run> {
  runs += 1;
  const standIn = await makeStandInVllm(join(root, `vllm-${runs}`));
  const scratch = join(root, `stock-${runs}`);
  const port = await freePort();
  const env = engineEnv({
    taskId,
    profile: "full",
    port,
    targetDir,
    speculatorDir: noSpeculatorDir,
    gpuMemoryUtilization: 0.9,
    homeDir: scratch,
    login: engineLogin(identity),
    image: { PATH: `${standIn.binDir}:/usr/bin:/bin` },
    simulated: {},
  });
  return { standIn, scratch, env, port };
}

async function launch(run: Run, identity: EngineIdentity, engineDir = STOCK_ENGINE_DIR, env = run.env) {
  return startEngine({ role: "stock", engineDir, scratchDir: run.scratch, env, identity });
}

/** The protocol's stock command line (section 4, Pairing) with section 3's values, as vLLM's parser reads it. */
function stockArgv(taskId: TaskId, port: number): string[] {
  const task = getTask(taskId);
  return [
    "vllm",
    "serve",
    targetDir,
    "--tokenizer",
    targetDir,
    "--served-model-name",
    task.target.repository,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--dtype",
    "bfloat16",
    "--enable-prefix-caching",
    "--max-model-len",
    String(task.maxModelLen),
    "--max-num-seqs",
    String(maxNumSeqs(task, getProfile("full")!)),
    "--gpu-memory-utilization",
    "0.90",
    "--seed",
    "0",
    "--enable-prompt-tokens-details",
    "--generation-config",
    targetDir,
    ...(task.languageModelOnly ? ["--language-model-only"] : []),
  ];
}

async function expectServes(engine: RunningEngine, servedName: string) {
  expect(await waitHealthy(engine, 60_000), engine.logTail()).toEqual({ ok: true });
  const reply = await streamChat(engine.url, {
    model: servedName,
    messages: [{ role: "user", content: "Say hello." }],
    max_tokens: 12,
    seed: 3,
    stream_options: { include_usage: true },
  });
  expect(reply.status).toBe(200);
  expect(reply.events.at(-1)).toBe("[DONE]");
  expect(reply.text.length).toBeGreaterThan(0);
}

describe("the stock engine's launch.sh on the stand-in vllm", () => {
  it("runs the protocol's command line with engineEnv's environment, and serves", async () => {
    const run = await prepare("qwen3-8b", asAgent);
    const engine = await launch(run, asAgent);
    try {
      const record = await run.standIn.firstRecord();
      expect(record.argv).toEqual(stockArgv("qwen3-8b", run.port));
      expect(record.argv).not.toContain("--speculative-config");
      for (const [key, value] of Object.entries(run.env)) expect([key, record.env[key]]).toEqual([key, value]);
      expect(Object.keys(record.env).filter((k) => !(k in run.env) && !RUNTIME_ADDED.includes(k))).toEqual([]);
      expect(record.env.SPECULATOR).toBe(noSpeculatorDir);
      expect(record.plugins).toEqual([]);
      await expectServes(engine, "Qwen/Qwen3-8B");
    } finally {
      await stopEngine(engine, asAgent, 5_000, run.scratch);
    }
  });

  it("keeps working under a uid with no passwd entry, with --language-model-only on qwen35-27b", async () => {
    const run = await prepare("qwen35-27b", noPasswd);
    const engine = await launch(run, noPasswd);
    try {
      const record = await run.standIn.firstRecord();
      expect([record.uid, record.user, record.env.USER, record.env.LOGNAME]).toEqual([
        UID,
        "arena-engine",
        "arena-engine",
        "arena-engine",
      ]);
      expect(record.env.HOME).toBe(run.scratch);
      expect(record.argv).toEqual(stockArgv("qwen35-27b", run.port));
      await expectServes(engine, "Qwen/Qwen3.5-27B");
    } finally {
      await stopEngine(engine, noPasswd, 5_000, run.scratch);
    }
  });

  it("fails at start-up in getpass.getuser() with the old environment (no USER or LOGNAME), as vLLM does", async () => {
    const run = await prepare("qwen3-8b", noPasswd);
    const { USER: _user, LOGNAME: _logname, ...old } = run.env;
    const engine = await launch(run, noPasswd, STOCK_ENGINE_DIR, old);
    try {
      const healthy = await waitHealthy(engine, 60_000);
      expect(healthy).toEqual({ ok: false, why: "the engine exited before it was healthy (code 1)" });
      expect(engine.logTail()).toContain(`KeyError: 'getpwuid(): uid not found: ${UID}'`);
    } finally {
      await stopEngine(engine, noPasswd, 5_000, run.scratch);
    }
  });

  it("finds and registers a plugin the installer put in that uid's user site", async () => {
    const engineDir = join(root, "engine-with-plugin");
    await cp(STOCK_ENGINE_DIR, engineDir, { recursive: true });
    await cp(join(VLLM_PLUGIN_FIXTURES, "arena-probe"), join(engineDir, "plugin"), { recursive: true });
    const run = await prepare("qwen3-8b", noPasswd);
    const installed = await installPlugin({
      runtime: "vllm",
      engineDir,
      scratchDir: run.scratch,
      env: run.env,
      identity: noPasswd,
    });
    expect(installed).toMatchObject({ status: "installed", summary: "Successfully installed arena_probe-0.1.0" });
    const engine = await launch(run, noPasswd, engineDir);
    try {
      const record = await run.standIn.firstRecord();
      expect(record.plugins).toEqual(["arena_probe"]);
      expect(record.userSite.startsWith(join(run.scratch, ".local"))).toBe(true);
      await expectServes(engine, "Qwen/Qwen3-8B");
      expect(engine.log).toContain(`arena_probe: registered as arena-engine (uid ${UID})`);
    } finally {
      await stopEngine(engine, noPasswd, 5_000, run.scratch);
    }
  });
});
