import { access, chmod, constants, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentProtocol, type ReferenceSpeculator, type TaskId } from "@/lib/protocol";
import { engineEnv } from "../agent/engine-env";
import { FALLBACK_LOGIN } from "../agent/engine-login";
import { startEngine, stopEngine } from "../agent/engine-process";
import type { EngineIdentity } from "../agent/engine-user";
import { freePort } from "../agent/free-port";
import { flagValue, makeStandInVllm, type StandInRecord } from "../testing/stand-in-vllm";
import { referenceEngine, VLLM_REFERENCE_ENGINES } from "./reference-engines";

const REPO = process.cwd();
const protocol = currentProtocol();
const everyReference = Object.values(protocol.tasks).flatMap((task) =>
  task.references.map((reference) => ({ taskId: task.id as TaskId, reference })),
);
/** vLLM 0.25's SpeculativeConfig method for each kind of reference (vllm/config/speculative.py). */
const VLLM_METHOD: Partial<Record<ReferenceSpeculator["kind"], string>> = {
  ngram: "ngram",
  draft: "draft_model",
  eagle3: "eagle3",
  mtp: "mtp",
};

describe("referenceEngine", () => {
  it("plays every reference on the simulated runtime with the simulated engine's mode for its kind", async () => {
    for (const { reference } of everyReference) {
      const engine = referenceEngine("sim", reference);
      expect(engine.ok, reference.key).toBe(true);
      if (!engine.ok) continue;
      expect(engine.speculator).toBeNull();
      await access(join(REPO, engine.engineDir, "launch.sh"), constants.X_OK);
    }
    const mtp = everyReference.find((r) => r.reference.kind === "mtp")!.reference;
    expect(referenceEngine("sim", mtp)).toMatchObject({ engineDir: "lib/sim-engine/engines/eagle" });
  });

  it("has a vLLM engine directory for every reference of section 11, and only those", async () => {
    const keys = [...new Set(everyReference.map((r) => r.reference.key))].sort();
    expect(Object.keys(VLLM_REFERENCE_ENGINES).sort()).toEqual(keys);
    for (const dir of Object.values(VLLM_REFERENCE_ENGINES)) await access(join(REPO, dir, "launch.sh"), constants.X_OK);
    expect(VLLM_REFERENCE_ENGINES.stock).toBe("lib/pods/stock-engines/vllm");
  });

  it("runs a checkpoint reference on vLLM only at the commit the operators pinned, naming the checkpoint", () => {
    const draft = protocol.tasks["qwen3-8b"].references.find((r) => r.kind === "draft")!;
    expect(referenceEngine("vllm", draft)).toEqual({
      ok: false,
      why: "its checkpoint Qwen/Qwen3-0.6B has no pinned commit yet (checkpointRevision in lib/protocol/v1.ts)",
    });
    const revision = "0123456789abcdef0123456789abcdef01234567";
    expect(referenceEngine("vllm", { ...draft, checkpointRevision: revision })).toEqual({
      ok: true,
      engineDir: "lib/pods/reference-engines/vllm/draft-qwen3-0.6b-4",
      speculator: { uri: "Qwen/Qwen3-0.6B", revision },
    });
    expect(referenceEngine("vllm", { ...draft, key: "unknown-4" })).toEqual({
      ok: false,
      why: "no engine directory plays unknown-4 on the vLLM runtime",
    });
  });
});

describe("each vLLM reference's launch.sh on the stand-in vllm", () => {
  const asAgent: EngineIdentity = { uid: null, gid: null, name: null };
  let root: string;
  let speculatorDir: string;
  let runs = 0;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "reference-vllm-"));
    await chmod(root, 0o755);
    speculatorDir = join(root, "speculator");
    await mkdir(speculatorDir);
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** Starts an engine directory as the arena would and returns what the stand-in recorded of it. */
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

  it("is the stock engine's command line plus --speculative-config with the reference's method and count", async () => {
    for (const { taskId, reference } of everyReference) {
      if (reference.key === "stock") continue;
      const stock = await recordOf(join(REPO, VLLM_REFERENCE_ENGINES.stock!), taskId);
      const record = await recordOf(join(REPO, VLLM_REFERENCE_ENGINES[reference.key]!), taskId);
      const label = `${taskId} ${reference.key}`;
      // each start has its own port; everything else is the stock engine's, in its order
      const port = flagValue(record.argv, "--port")!;
      const stockAtPort = stock.argv.map((a, i) => (stock.argv[i - 1] === "--port" ? port : a));
      expect(record.argv.slice(0, -2), label).toEqual(stockAtPort);
      expect(record.argv.at(-2), label).toBe("--speculative-config");
      const config = JSON.parse(flagValue(record.argv, "--speculative-config")!) as Record<string, unknown>;
      expect(config.method, label).toBe(VLLM_METHOD[reference.kind]);
      expect(config.num_speculative_tokens, label).toBe(reference.tokens);
      if (reference.checkpoint) expect(config.model, label).toBe(speculatorDir);
      else expect(config.model, label).toBeUndefined();
      if (reference.kind === "ngram") expect([config.prompt_lookup_max, config.prompt_lookup_min]).toEqual([3, 2]);
    }
  });
});
