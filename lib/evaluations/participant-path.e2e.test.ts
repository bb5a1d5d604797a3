import { createHash } from "node:crypto";
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as events } from "@/app/api/submissions/[id]/events/route";
import { POST as submit } from "@/app/api/submissions/route";
import { db } from "../db/client";
import { packDirectory } from "../engine-archive/pack-directory";
import { directoryDigest } from "../fetch/seal-directory";
import { type HubTestServer, startHubTestServer } from "../fetch/testing/hub-test-server";
import { resetEventHubForTests } from "../queue/event-hub";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { serveHandler } from "../testing/serve-handler";
import { type SpawnedWorker, simulatedWorkerEnv, spawnWorker } from "../testing/spawn-worker";
import { type ReceivedEvent, readSse } from "../testing/sse-client";
import { until } from "../testing/until";
import { FIXTURE_TOKENIZER_DIR } from "../tokenizer/fixtures/build-fixture";
import { qwen3Tokenizer } from "../tokenizer/packaged-qwen3";
import { loadTargetTokenizer } from "../tokenizer/target-tokenizer";
import { issueToken } from "../tokens/issue-token";
import { repoRoot } from "./runtime";

// The real participant's path on the embedded default (issue 12): a speculator named by its Hub repository and
// commit, fetched from a server speaking the Hub's API (a redirect to a second origin for its weights), an engine
// directory whose plugin/ the engine needs, on `qwen35-27b` whose target holds a tokenizer of another vocabulary
// than Qwen3's. Then each way the participant can break the fetch or the plugin (charged), and the Hub out of reach
// (void and refunded).

const COMMIT = "3f1c2e9a7b6d5c4e3f2a1b0c9d8e7f6a5b4c3d2e";
const MISSING_COMMIT = "0000000000000000000000000000000000000001";
const SPECULATOR_FILES = {
  "config.json": JSON.stringify({ architectures: ["LlamaForCausalLMEagle3"], draft_vocab_size: 4282 }),
  "sim-speculator.json": JSON.stringify({ method: "eagle", k: 3 }),
  "model.safetensors": Buffer.concat([Buffer.from('{"__metadata__":{}}'), Buffer.alloc(4096, 7)]),
  "modeling_eagle.py": "raise SystemExit('python files are never fetched')\n",
  "pytorch_model.bin": Buffer.alloc(1024, 1),
};
const FETCHED = ["config.json", "model.safetensors", "sim-speculator.json"];
const sha256 = (content: string | Buffer) => createHash("sha256").update(content).digest("hex");

/** An engine whose drafter comes from its own plugin/, configured by the speculator checkpoint it was given. */
const LAUNCH = `#!/usr/bin/env bash
case "$1" in
  serve) exec "$ARENA_SIM_ENGINE" serve --drafter checkpoint ;;
  *) echo "usage: launch.sh serve" >&2; exit 2 ;;
esac
`;
const PLUGIN_MODULE = `import { readFileSync } from "node:fs";
import { join } from "node:path";
// Registers the drafter the checkpoint describes: the engine cannot serve --drafter checkpoint without this plugin.
export function register(engine) {
  const config = JSON.parse(readFileSync(join(process.env.SPECULATOR, "sim-speculator.json"), "utf8"));
  engine.registerDrafter("checkpoint", { method: config.method, k: config.k });
}
`;

let ctx: ArenaTestContext;
let hub: HubTestServer;
let eventsServer: Awaited<ReturnType<typeof serveHandler>>;
let token: string;
let base: string;
let engineInline: string;
const workers: SpawnedWorker[] = [];

async function submitWith(speculator: { uri: string; revision: string }, engine = engineInline) {
  const response = await submit(
    new Request("http://arena.test/api/submissions", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        task_id: "qwen35-27b",
        split: "dev",
        speculator,
        engine: { inline: engine },
        solution: { method: "EAGLE-like, 3 tokens, with its plugin", kind: "eagle3" },
        profile: "ci",
      }),
    }),
    { params: Promise.resolve({}) },
  );
  const body = (await response.json()) as { id: string; evaluationId: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body;
}

async function ended(evaluationId: string, timeoutMs: number) {
  return until(async () => {
    const e = await db().evaluation.findUnique({
      where: { id: evaluationId },
      include: { ledger: true, gates: true, events: { orderBy: { seq: "asc" } } },
    });
    return e && ["scored", "failed", "void", "cancelled"].includes(e.status) ? e : undefined;
  }, timeoutMs);
}

const logsOf = (events: { type: string; data: unknown }[]) =>
  events.filter((e) => e.type === "log").map((e) => String((e.data as { message?: string }).message));

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  base = await mkdtemp(join(tmpdir(), "participant-path-"));
  // engines run as the unprivileged engine user, who must reach the sealed inputs and the target
  await chmod(base, 0o755);
  const targets = join(base, "targets");
  await mkdir(targets, { mode: 0o755 });
  await cp(FIXTURE_TOKENIZER_DIR, join(targets, "qwen35-27b"), { recursive: true });
  const engineDir = join(base, "engine");
  await mkdir(join(engineDir, "plugin"), { recursive: true });
  await writeFile(join(engineDir, "launch.sh"), LAUNCH, { mode: 0o755 });
  await writeFile(
    join(engineDir, "plugin", "sim-plugin.json"),
    JSON.stringify({ name: "checkpoint", version: "1.0.0", main: "checkpoint.mjs" }),
  );
  await writeFile(join(engineDir, "plugin", "checkpoint.mjs"), PLUGIN_MODULE);
  engineInline = (await packDirectory(engineDir)).toString("base64");

  hub = await startHubTestServer({
    repos: [
      { id: "arena-tests/sim-eagle", commits: { [COMMIT]: { files: SPECULATOR_FILES } }, refs: { main: COMMIT } },
      { id: "arena-tests/private-eagle", private: true, commits: { [COMMIT]: { files: SPECULATOR_FILES } } },
      { id: "arena-tests/gated-eagle", gated: "manual", commits: { [COMMIT]: { files: SPECULATOR_FILES } } },
      { id: "arena-tests/huge-eagle", commits: { [COMMIT]: { files: SPECULATOR_FILES } } },
      {
        id: "arena-tests/no-weights",
        commits: { [COMMIT]: { files: { "config.json": "{}", "pytorch_model.bin": Buffer.alloc(64) } } },
      },
    ],
    faults: [
      // 30 GB listed: more than half the 27B target's 55.6 GB
      { repo: "arena-tests/huge-eagle", path: "model.safetensors", fault: { kind: "listed-size", size: 30e9 } },
      // the weights' first download drops mid-body: the fetch retries it
      { repo: "arena-tests/sim-eagle", path: "model.safetensors", times: 1, fault: { kind: "drop" } },
    ],
  });
  token = (await issueToken({ accountName: "participant" })).token;
  eventsServer = await serveHandler((request) =>
    events(request, { params: Promise.resolve({ id: new URL(request.url).pathname.split("/")[3]! }) }),
  );
  workers.push(
    spawnWorker(simulatedWorkerEnv(ctx, join(base, "data"), { HUB_BASE_URL: hub.url, TARGETS_DIR: targets })),
  );
});

afterAll(async () => {
  for (const w of workers) await w.kill();
  await hub.close().catch(() => undefined);
  await eventsServer.close();
  await resetEventHubForTests();
  await ctx.teardown();
  await rm(base, { recursive: true, force: true }).catch(() => undefined);
});

describe("the real participant's path on the embedded default", () => {
  it("fetches a Hub speculator through the Hub's redirect, installs the engine's plugin/, counts with the target's own tokenizer, and scores, streamed live with no event lost across a reconnect", async () => {
    const created = await submitWith({ uri: "arena-tests/sim-eagle", revision: COMMIT });

    // streamed live: part of the stream, a dropped connection, then the rest resumed from the last id seen
    const eventsUrl = `${eventsServer.url}/api/submissions/${created.id}/events`;
    const first = await readSse(eventsUrl, {
      until: (_e, all) => all.filter((x) => x.id !== null).length >= 12,
      timeoutMs: 240_000,
    });
    const firstIds = first.events.filter((e) => e.id !== null).map((e) => e.id!);
    const second = await readSse(eventsUrl, { lastEventId: firstIds.at(-1)!, timeoutMs: 480_000 });
    expect(second.ended).toBe(true);
    const ids = [...firstIds, ...second.events.filter((e) => e.id !== null).map((e) => e.id!)];
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    const numbered = [...first.events, ...second.events].filter(
      (e): e is ReceivedEvent & { id: number } => e.id !== null,
    );
    const statuses = numbered.filter((e) => e.event === "status").map((e) => (e.data as { status: string }).status);

    const evaluation = await ended(created.evaluationId, 60_000);
    const failedGates = evaluation.gates.filter((g) => !g.passed);
    // each workload's passes: a speed ratio under 1 on a crowded host says which pass, beside the evaluation's log
    const ratios = JSON.stringify((evaluation.result as { ratios?: unknown } | null)?.ratios ?? null);
    const why = `${evaluation.status}: ${evaluation.reason}; failed gates ${JSON.stringify(failedGates)}; ratios ${ratios}\n${logsOf(evaluation.events).join("\n")}`;
    expect(evaluation.status, why).toBe("scored");
    expect(evaluation.specscore, why).toBeGreaterThan(1);
    expect(failedGates).toEqual([]);
    expect(evaluation.ledger.map((l) => l.kind)).toEqual(["charge"]);
    expect(statuses, why).toEqual(["queued", "fetching", "running", "checking", "scored"]);
    expect(numbered.filter((e) => e.event === "pass-ended")).toHaveLength(18);
    expect(evaluation.gates.length).toBeGreaterThanOrEqual(7);
    expect(evaluation.gpuSeconds).toBeGreaterThan(0);
    const scored = evaluation.result as { score: number; ratios: Record<string, { ratio: number }> };
    expect(scored.score).toBeCloseTo(evaluation.specscore!, 12);
    expect(scored.ratios.solo!.ratio).toBeGreaterThan(1);

    // sealed with its hashes, and the record names what was sealed
    const files = FETCHED.map((path) => {
      const content = SPECULATOR_FILES[path as keyof typeof SPECULATOR_FILES];
      return { path, size: Buffer.byteLength(content), sha256: sha256(content) };
    });
    expect(evaluation.speculatorCommit).toBe(COMMIT);
    expect(evaluation.speculatorFiles).toEqual(files);
    expect(evaluation.speculatorSha256).toBe(directoryDigest(files));
    const reproducibility = (evaluation.result as { reproducibility: Record<string, unknown> }).reproducibility;
    expect(reproducibility).toMatchObject({
      speculator_commit: COMMIT,
      speculator_sha256: directoryDigest(files),
      engine_archive_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    // only *.json and *.safetensors were asked for; the weights came from the second origin, without the token
    const asked = hub.requests.map((r) => decodeURIComponent(r.url));
    expect(asked.filter((u) => /modeling_eagle\.py|pytorch_model\.bin/.test(u))).toEqual([]);
    const fromCdn = hub.requests.filter((r) => r.server === "cdn");
    // the first download of the weights dropped mid-body and was fetched again
    const weights = sha256(SPECULATOR_FILES["model.safetensors"]);
    expect(fromCdn.map((r) => r.url.split("?")[0]!.split("/").pop())).toEqual([weights, weights]);
    expect(fromCdn.every((r) => r.authorization === undefined)).toBe(true);

    // the plugin was installed before the engine's starts, and the judge counted with the fixture tokenizer
    const logs = logsOf(evaluation.events);
    expect(logs.filter((l) => l.startsWith("plugin/ installed: ")).length).toBeGreaterThanOrEqual(2);
    const fixture = loadTargetTokenizer(FIXTURE_TOKENIZER_DIR);
    expect(fixture.fingerprint).not.toBe(qwen3Tokenizer().fingerprint);
    expect(logs).toContain(
      `counting with the target's tokenizer: ${fixture.vocabSize} tokens, sha256 ${fixture.fingerprint.slice(0, 16)}`,
    );
    expect(await readFile(join(base, "targets", "qwen35-27b", "tokenizer.json"))).toEqual(
      await readFile(join(FIXTURE_TOKENIZER_DIR, "tokenizer.json")),
    );
  }, 600_000);

  it("ends each fault of the participant's as failed with its reason, charged, before any engine runs", async () => {
    const cases = [
      { speculator: { uri: "arena-tests/private-eagle", revision: COMMIT }, reason: /arena-tests\/private-eagle/ },
      { speculator: { uri: "arena-tests/gated-eagle", revision: COMMIT }, reason: /gated/i },
      { speculator: { uri: "arena-tests/sim-eagle", revision: MISSING_COMMIT }, reason: new RegExp(MISSING_COMMIT) },
      { speculator: { uri: "arena-tests/huge-eagle", revision: COMMIT }, reason: /half the target/ },
      { speculator: { uri: "arena-tests/no-weights", revision: COMMIT }, reason: /safetensors/ },
      { speculator: { uri: "arena-tests/does-not-exist", revision: COMMIT }, reason: /arena-tests\/does-not-exist/ },
    ];
    for (const c of cases) {
      const created = await submitWith(c.speculator);
      const evaluation = await ended(created.evaluationId, 120_000);
      const label = `${c.speculator.uri}@${c.speculator.revision}`;
      expect([label, evaluation.status], `${evaluation.reason}`).toEqual([label, "failed"]);
      expect(evaluation.reason, label).toMatch(c.reason);
      expect(evaluation.specscore).toBeNull();
      expect(
        evaluation.ledger.map((l) => l.kind),
        label,
      ).toEqual(["charge"]);
      expect(
        evaluation.events.filter((e) => e.type === "engine"),
        label,
      ).toEqual([]);
    }
    // the over-size listing was refused before a byte of it was downloaded
    expect(hub.requests.filter((r) => r.url.includes("huge-eagle/resolve"))).toEqual([]);
  }, 600_000);

  it("ends a broken plugin/ as failed with the installer's message, charged", async () => {
    const broken = (await packDirectory(join(repoRoot(), "lib/sim-engine/engines/plugin-broken"))).toString("base64");
    const created = await submitWith({ uri: "arena-tests/sim-eagle", revision: COMMIT }, broken);
    const evaluation = await ended(created.evaluationId, 240_000);
    expect([evaluation.status, evaluation.reason]).toEqual([
      "failed",
      expect.stringMatching(/plugin\/ did not install/),
    ]);
    expect(evaluation.reason).toMatch(/sim-lookahead-kernels/);
    expect(evaluation.ledger.map((l) => l.kind)).toEqual(["charge"]);
    expect(logsOf(evaluation.events).some((l) => l.includes("plugin/ did not install"))).toBe(true);
  }, 300_000);

  it("ends void and refunded when the Hub cannot be reached", async () => {
    await hub.close();
    const created = await submitWith({ uri: "arena-tests/sim-eagle", revision: COMMIT });
    const evaluation = await ended(created.evaluationId, 180_000);
    expect([evaluation.status, evaluation.refunded]).toEqual(["void", true]);
    expect(evaluation.reason).toMatch(/Hub/);
    expect(evaluation.ledger.map((l) => l.kind).sort()).toEqual(["charge", "refund"]);
  }, 240_000);
});
