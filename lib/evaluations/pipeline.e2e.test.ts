import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as events } from "@/app/api/submissions/[id]/events/route";
import { POST as submit } from "@/app/api/submissions/route";
import { db } from "../db/client";
import { packDirectory } from "../engine-archive/pack-directory";
import { resetEventHubForTests } from "../queue/event-hub";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { serveHandler } from "../testing/serve-handler";
import { type SpawnedWorker, simulatedWorkerEnv, spawnWorker } from "../testing/spawn-worker";
import { type ReceivedEvent, readSse } from "../testing/sse-client";
import { until } from "../testing/until";
import { issueToken } from "../tokens/issue-token";
import { repoRoot } from "./runtime";

// End to end on the embedded default: the API, the queue, the real worker process, the local pod backend,
// the pod agent, the simulated engines, the judge, the gates, and the SSE stream — under the `ci` profile.

let ctx: ArenaTestContext;
let server: Awaited<ReturnType<typeof serveHandler>>;
let token: string;
let dataDir: string;
const workers: SpawnedWorker[] = [];

const workerEnv = (extra: Record<string, string> = {}) => simulatedWorkerEnv(ctx, dataDir, extra);

async function engineArchive(mode: string): Promise<string> {
  return (await packDirectory(join(repoRoot(), "lib/sim-engine/engines", mode))).toString("base64");
}

async function submitEngine(inline: string): Promise<{ id: string; evaluationId: string }> {
  const response = await submit(
    new Request("http://arena.test/api/submissions", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        task_id: "qwen3-8b",
        split: "dev",
        engine: { inline },
        solution: { method: "simulated", kind: "eagle3" },
        profile: "ci",
      }),
    }),
    { params: Promise.resolve({}) },
  );
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; evaluationId: string };
}

const eventsUrl = (id: string) => `${server.url}/api/submissions/${id}/events`;
const isFinal = (e: ReceivedEvent) =>
  e.event === "status" && ["scored", "failed", "void", "cancelled"].includes((e.data as { status: string }).status);

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  dataDir = await mkdtemp(join(tmpdir(), "arena-pipeline-"));
  // Engines run as the unprivileged engine user, who must reach the sealed inputs.
  await chmod(dataDir, 0o755);
  token = (await issueToken({ accountName: "pipeline" })).token;
  server = await serveHandler((request) =>
    events(request, { params: Promise.resolve({ id: new URL(request.url).pathname.split("/")[3]! }) }),
  );
});

afterAll(async () => {
  for (const w of workers) await w.kill();
  await server.close();
  await resetEventHubForTests();
  await ctx.teardown();
  await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
});

describe("the evaluation pipeline on the embedded default", () => {
  it("scores the simulated EAGLE-like engine above 1 with every gate passed, streamed live with no event lost across a reconnect", async () => {
    const worker = spawnWorker(workerEnv());
    workers.push(worker);
    const created = await submitEngine(await engineArchive("eagle"));

    // Read part of the stream, drop the connection, then resume from the last id seen.
    const first = await readSse(eventsUrl(created.id), {
      until: (_e, all) => all.filter((x) => x.id !== null).length >= 12,
      timeoutMs: 240_000,
    });
    const firstIds = first.events.filter((e) => e.id !== null).map((e) => e.id!);
    const second = await readSse(eventsUrl(created.id), { lastEventId: firstIds.at(-1)!, timeoutMs: 480_000 });
    expect(second.ended).toBe(true);
    const secondIds = second.events.filter((e) => e.id !== null).map((e) => e.id!);
    const ids = [...firstIds, ...secondIds];
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    const numbered = [...first.events, ...second.events].filter((e) => e.id !== null);
    expect(isFinal(numbered.at(-1)!)).toBe(true);
    const statuses = numbered.filter((e) => e.event === "status").map((e) => (e.data as { status: string }).status);
    const ending = await db().evaluation.findUniqueOrThrow({
      where: { id: created.evaluationId },
      include: { gates: { where: { passed: false } } },
    });
    const why = `${ending.status}: ${ending.reason}; failed gates ${JSON.stringify(ending.gates)}`;
    expect(statuses, why).toEqual(["queued", "fetching", "running", "checking", "scored"]);
    expect(numbered.filter((e) => e.event === "pass-ended")).toHaveLength(18);

    const evaluation = await db().evaluation.findUniqueOrThrow({
      where: { id: created.evaluationId },
      include: { gates: true, passes: true, ledger: true },
    });
    expect(evaluation.status).toBe("scored");
    expect(evaluation.specscore).toBeGreaterThan(1);
    expect(evaluation.gates.length).toBeGreaterThanOrEqual(7);
    expect(evaluation.gates.filter((g) => !g.passed)).toEqual([]);
    expect(evaluation.passes).toHaveLength(18);
    expect(evaluation.gpuSeconds).toBeGreaterThan(0);
    expect(evaluation.ledger.map((l) => l.kind)).toEqual(["charge"]);
    const record = evaluation.result as { score: number; ratios: Record<string, { ratio: number }> };
    expect(record.score).toBeCloseTo(evaluation.specscore!, 12);
    expect(record.ratios.solo!.ratio).toBeGreaterThan(1);
  }, 600_000);

  it("scores a candidate that never becomes healthy 0, with that reason, and charges it (protocol section 7)", async () => {
    const created = await submitEngine(await engineArchive("never-healthy"));
    const evaluation = await until(async () => {
      const e = await db().evaluation.findUnique({ where: { id: created.evaluationId }, include: { ledger: true } });
      return e && ["failed", "void", "scored"].includes(e.status) ? e : undefined;
    }, 240_000);
    expect([evaluation.status, evaluation.specscore, evaluation.reason]).toEqual(["scored", 0, expect.any(String)]);
    expect(evaluation.reason).toMatch(/candidate engine did not start: the engine did not answer \/health within 30 s/);
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
