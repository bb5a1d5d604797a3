import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as submit } from "@/app/api/submissions/route";
import { db } from "../db/client";
import { packDirectory } from "../engine-archive/pack-directory";
import { getProfile } from "../protocol";
import { resetEventHubForTests } from "../queue/event-hub";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { type SpawnedWorker, simulatedWorkerEnv, spawnWorker } from "../testing/spawn-worker";
import { until } from "../testing/until";
import { issueToken } from "../tokens/issue-token";
import { repoRoot } from "./runtime";

// End to end on the embedded default: the API, the queue, the real worker process, the local pod backend, the pod
// agent and the simulated engines, for engines that never start. A whole scored evaluation, streamed live across a
// reconnect, is participant-path.e2e.test.ts's.

let ctx: ArenaTestContext;
let token: string;
let dataDir: string;
const workers: SpawnedWorker[] = [];

const workerEnv = (extra: Record<string, string> = {}) => simulatedWorkerEnv(ctx, dataDir, extra);

async function engineArchive(mode: string): Promise<string> {
  return (await packDirectory(join(repoRoot(), "lib/sim-engine/engines", mode))).toString("base64");
}

async function submitEngine(inline: string, profile = "ci"): Promise<{ id: string; evaluationId: string }> {
  const response = await submit(
    new Request("http://arena.test/api/submissions", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        task_id: "qwen3-8b",
        split: "dev",
        engine: { inline },
        solution: { method: "simulated", kind: "eagle3" },
        profile,
      }),
    }),
    { params: Promise.resolve({}) },
  );
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; evaluationId: string };
}

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  dataDir = await mkdtemp(join(tmpdir(), "arena-pipeline-"));
  // Engines run as the unprivileged engine user, who must reach the sealed inputs.
  await chmod(dataDir, 0o755);
  token = (await issueToken({ accountName: "pipeline" })).token;
});

afterAll(async () => {
  for (const w of workers) await w.kill();
  await resetEventHubForTests();
  await ctx.teardown();
  await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
});

describe("the evaluation pipeline on the embedded default", () => {
  it("scores a candidate that never becomes healthy 0, with that reason, and charges it (protocol section 7)", async () => {
    workers.push(spawnWorker(workerEnv()));
    // the profile with the shortest health limit: the test waits all of it
    const created = await submitEngine(await engineArchive("never-healthy"), "redteam");
    const evaluation = await until(async () => {
      const e = await db().evaluation.findUnique({ where: { id: created.evaluationId }, include: { ledger: true } });
      return e && ["failed", "void", "scored"].includes(e.status) ? e : undefined;
    }, 240_000);
    expect([evaluation.status, evaluation.specscore, evaluation.reason]).toEqual(["scored", 0, expect.any(String)]);
    const limit = getProfile("redteam")?.healthTimeoutSeconds;
    expect(evaluation.reason).toContain(
      `candidate engine did not start: the engine did not answer /health within ${limit} s`,
    );
    expect(evaluation.ledger.map((l) => l.kind)).toEqual(["charge"]);
    // its log is kept for its submitter, and no public reason names a server path
    expect(evaluation.logTail).not.toBeNull();
    expect(evaluation.reason).not.toMatch(/\/(tmp|work|home|root)\//);
  }, 300_000);

  it("ends void and refunds the budget when the stock engine cannot start", async () => {
    for (const w of workers) await w.kill("SIGTERM");
    const broken = await mkdtemp(join(tmpdir(), "broken-stock-"));
    await writeFile(join(broken, "launch.sh"), "#!/usr/bin/env bash\necho 'stock engine: no GPU here' >&2\nexit 3\n");
    await chmod(join(broken, "launch.sh"), 0o755);
    await chmod(broken, 0o755);
    workers.push(spawnWorker(workerEnv({ STOCK_ENGINE_DIR: broken })));
    const created = await submitEngine(await engineArchive("stock"));
    const evaluation = await until(async () => {
      const e = await db().evaluation.findUnique({ where: { id: created.evaluationId }, include: { ledger: true } });
      return e && ["failed", "void", "scored"].includes(e.status) ? e : undefined;
    }, 300_000);
    expect([evaluation.status, evaluation.reason]).toEqual(["void", expect.any(String)]);
    expect(evaluation.reason).toMatch(/stock engine did not start/);
    expect(evaluation.refunded).toBe(true);
    expect(evaluation.ledger.map((l) => l.kind).sort()).toEqual(["charge", "refund"]);
    await rm(broken, { recursive: true, force: true });
  }, 400_000);
});
