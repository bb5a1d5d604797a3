import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { db } from "../db/client";
import { packDirectory } from "../engine-archive/pack-directory";
import { ensurePostgres, type Service } from "../ops/services";
import { createSubmission } from "../submissions/create-submission";
import { serveApp } from "../testing/app-routes";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { type SpawnedWorker, simulatedWorkerEnv, spawnWorker } from "../testing/spawn-worker";
import { until } from "../testing/until";
import { issueToken } from "../tokens/issue-token";
import { repoRoot } from "./runtime";

// PostgreSQL of this file's own (a private cluster, as lib/ops starts the arena's), stopped for 10 s while a pass
// runs, then started again on the same port.
const OUTAGE_MS = 10_000;
let base: string;
let postgres: Service;
let port: number;
let ctx: ArenaTestContext;
let dataDir: string;
let worker: SpawnedWorker | undefined;
let server: Awaited<ReturnType<typeof serveApp>>;

const startPostgres = () =>
  ensurePostgres({ dataDir: join(base, "pg"), port, durable: false }).then((service) => {
    postgres = service;
  });

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "arena-pg-outage-"));
  await chmod(base, 0o755);
  postgres = await ensurePostgres({ dataDir: join(base, "pg"), port: 0, durable: false });
  port = Number(new URL(postgres.url).port);
  // the test databases are made on this server (lib/ops/test-database.ts reads DATABASE_URL once, from here on)
  process.env.DATABASE_URL = postgres.url;
  ctx = await setupArenaTestContext();
  dataDir = join(base, "data");
  server = await serveApp();
});

afterAll(async () => {
  await worker?.kill();
  await server?.close();
  await ctx?.teardown().catch(() => undefined);
  await postgres?.stop();
  await rm(base, { recursive: true, force: true });
});

describe("PostgreSQL down for 10 s in the middle of a pass", () => {
  it("is waited out by the worker: the same attempt and pod go on, no pass replayed; the API answers 503 meanwhile", async () => {
    worker = spawnWorker(simulatedWorkerEnv(ctx, dataDir));
    // any failure below prints what the worker said (its last 400 lines), so that it explains itself
    onTestFailed(() => {
      console.error(`the worker's output:\n${worker?.output.join("\n")}`);
    });
    const { accountId, token } = await issueToken({ accountName: "outage" });
    const inline = (await packDirectory(join(repoRoot(), "lib/sim-engine/engines/ngram"))).toString("base64");
    const { evaluationId } = await createSubmission(
      { accountId, kind: "participant" },
      { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { kind: "ngram" }, profile: "ci" },
    );
    await until(
      async () =>
        (await db().evaluationEvent.findFirst({
          where: { evaluationId, type: "pass-started", data: { path: ["workload"], equals: "team" } },
        })) ?? undefined,
      300_000,
      100,
    );
    const before = await db().evaluation.findUniqueOrThrow({ where: { id: evaluationId } });
    const storedBefore = await db().evaluationEvent.count({ where: { evaluationId } });

    await postgres.stop();
    const stoppedAt = Date.now();
    // the API while it is down: an answer once the datastore check gives up, never a hang (the fetch aborts at 5 s, and
    // an aborted fetch is status 0). How long the check itself waits is datastore-unavailable.test.ts's to hold: here
    // an answer's time is also this process's and the server's waits for a core, which reached 4,752 ms in a fresh
    // clone's CI on two busy cores. Both paths are asked at once, so that two rounds fit the outage's first 8 s.
    const answers: { path: string; status: number; ms: number }[] = [];
    const ask = async (path: string) => {
      const started = Date.now();
      const status = await fetch(`${server.url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(5_000),
      }).then(
        (r) => r.status,
        () => 0,
      );
      answers.push({ path, status, ms: Date.now() - started });
    };
    while (Date.now() - stoppedAt < OUTAGE_MS - 2_000) {
      await Promise.all([ask("/api/health"), ask("/api/budget")]);
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
    await startPostgres();
    expect(Number(new URL(postgres.url).port)).toBe(port);

    const done = await until(async () => {
      const row = await db().evaluation.findUnique({ where: { id: evaluationId }, include: { passes: true } });
      return row && ["scored", "failed", "void", "cancelled"].includes(row.status) ? row : undefined;
    }, 420_000);

    for (const path of ["/api/health", "/api/budget"])
      expect(answers.filter((a) => a.path === path).length, path).toBeGreaterThanOrEqual(2);
    for (const answer of answers) expect(answer.status, `${answer.path} after ${answer.ms} ms`).toBe(503);
    expect(done.status, done.reason ?? "").toBe("scored");
    // scored with a reason is a pod that ended early (the candidate engine died: its later passes never ran)
    expect(done.reason, "the reason of an evaluation scored on every pass").toBeNull();
    // the worker lived through it, and so did its attempt and its pod
    expect(worker.child.exitCode).toBeNull();
    expect(done.attempt).toBe(before.attempt);
    expect(done.podId).toBe(before.podId);
    expect(worker.output.some((line) => line.includes("PostgreSQL cannot be reached: trying again"))).toBe(true);
    expect(worker.output.some((line) => line.includes("the datastore answers again"))).toBe(true);
    // no pass replayed, none lost; what the pod said during the outage was stored after it
    const events = await db().evaluationEvent.findMany({ where: { evaluationId }, orderBy: { seq: "asc" } });
    for (const type of ["pass-started", "pass-ended"]) {
      const keys = events
        .filter((e) => e.type === type)
        .map((e) => {
          const d = e.data as { engine: string; workload: string; pass: number };
          return `${d.engine}/${d.workload}/${d.pass}`;
        });
      expect(keys, type).toHaveLength(18);
      expect(new Set(keys).size, type).toBe(18);
    }
    expect(done.passes).toHaveLength(18);
    expect(events.length).toBeGreaterThan(storedBefore);
    expect(events.filter((e) => e.createdAt.getTime() > stoppedAt + OUTAGE_MS).length).toBeGreaterThan(0);
  }, 900_000);
});
