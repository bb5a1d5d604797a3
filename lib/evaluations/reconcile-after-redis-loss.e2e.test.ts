import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { writeTar } from "../engine-archive/write-tar";
import { checkRedis, ensureRedis, type Service } from "../ops/services";
import { createRedis } from "../queue/connection";
import { evaluationsQueue } from "../queue/evaluations-queue";
import { MAINTENANCE_QUEUE, RECONCILE_SCHEDULER } from "../queue/maintenance-queue";
import { createSubmission } from "../submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { type SpawnedWorker, simulatedWorkerEnv, spawnWorker } from "../testing/spawn-worker";
import { until } from "../testing/until";
import { issueToken } from "../tokens/issue-token";

// A private redis-server started as lib/ops starts the arena's, but keeping nothing across a restart: the worst case.
let redisDir: string;
let redis: Service;
let port: number;
let ctx: ArenaTestContext;
let dataDir: string;
let accountId: string;
let worker: SpawnedWorker | undefined;
const connection = () => createRedis(redis.url);
let maintenance: Queue;

// An engine whose launch.sh exits at once: each evaluation runs to its end (scored 0, "did not start") in seconds.
const inline = gzipSync(
  writeTar([{ path: "launch.sh", data: new TextEncoder().encode("#!/bin/sh\nexit 3\n"), mode: 0o755 }]),
).toString("base64");

beforeAll(async () => {
  redisDir = await mkdtemp(join(tmpdir(), "arena-redis-loss-"));
  redis = await ensureRedis({ dir: join(redisDir, "redis"), port: 0, persistence: "none" });
  port = Number(new URL(redis.url).port);
  ctx = await setupArenaTestContext({ REDIS_URL: redis.url });
  dataDir = await mkdtemp(join(tmpdir(), "arena-redis-loss-data-"));
  await chmod(dataDir, 0o755);
  ({ accountId } = await issueToken({ accountName: "redis-loss" }));
  maintenance = new Queue(MAINTENANCE_QUEUE, { connection: connection(), prefix: ctx.queuePrefix });
});

afterAll(async () => {
  await worker?.kill();
  await maintenance?.close();
  await ctx?.teardown();
  await redis?.stop();
  await rm(redisDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
});

async function submit(enqueue?: (id: string) => Promise<void>): Promise<string> {
  const created = await createSubmission(
    { accountId, kind: "participant" },
    { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { kind: "other" }, profile: "ci" },
    enqueue ? { enqueue } : {},
  );
  return created.evaluationId;
}

/** SIGKILL, then the same server started again on the same port, empty. */
async function killAndRestartRedis(): Promise<void> {
  process.kill(redis.pid!, "SIGKILL");
  await until(
    () =>
      checkRedis(redis.url, 500).then(
        () => undefined,
        () => true,
      ),
    10_000,
    50,
  );
  redis = await ensureRedis({ dir: join(redisDir, "redis"), port, persistence: "none" });
  expect(Number(new URL(redis.url).port)).toBe(port);
}

const over = (status: string) => ["scored", "failed", "void", "cancelled"].includes(status);

async function waitOver(ids: string[], timeoutMs: number) {
  return until(async () => {
    const rows = await db().evaluation.findMany({ where: { id: { in: ids } } });
    return rows.length === ids.length && rows.every((r) => over(r.status)) ? rows : undefined;
  }, timeoutMs).catch((error: unknown) => {
    console.error(worker?.output.slice(-60).join("\n"));
    throw error;
  });
}

describe("a Redis restarted without its data", () => {
  it("loses no charged evaluation: a worker that starts runs every queued one in submission order, and its schedule is back", async () => {
    const older = [await submit(), await submit(), await submit()];
    for (const id of older) expect(await (await evaluationsQueue().getJob(id))?.getState()).toBe("waiting");

    await killAndRestartRedis();
    for (const id of older) expect(await evaluationsQueue().getJob(id)).toBeUndefined();
    // submitted after the loss: its job is the only one Redis holds, first in line unless the queue is put in order
    const newer = await submit();
    expect(await (await evaluationsQueue().getJob(newer))?.getState()).toBe("waiting");
    expect(await maintenance.getJobScheduler(RECONCILE_SCHEDULER)).toBeUndefined();

    worker = spawnWorker(simulatedWorkerEnv(ctx, dataDir, { REDIS_URL: redis.url, RECONCILE_EVERY_MS: "2000" }));
    const rows = await waitOver([...older, newer], 180_000);
    const byStart = [...rows].sort((a, b) => a.startedAt!.getTime() - b.startedAt!.getTime()).map((r) => r.id);
    expect(byStart).toEqual([...older, newer]);
    // each taken once and run to its end: scored 0, for an engine that does not start
    for (const row of rows) {
      expect(row.attempt).toBe(1);
      expect([row.status, row.reason]).toEqual([
        "scored",
        expect.stringMatching(/^the candidate engine did not start/),
      ]);
    }
    expect((await maintenance.getJobScheduler(RECONCILE_SCHEDULER))?.every).toBe(2000);
  }, 240_000);

  it("re-creates the schedule while the worker runs, and the schedule runs a queued evaluation that has no job", async () => {
    const logged = worker!.output.length;
    await killAndRestartRedis();
    // the worker's connection comes back, finds the schedule gone, and puts it back
    await until(
      async () =>
        worker!.output.slice(logged).find((line) => line.includes("the upkeep's schedule was missing from Redis")),
      20_000,
      100,
    );
    expect((await maintenance.getJobScheduler(RECONCILE_SCHEDULER))?.every).toBe(2000);

    // charged and queued, but its job never reached Redis (an enqueue lost with the data)
    const orphan = await submit(async () => undefined);
    expect(await evaluationsQueue().getJob(orphan)).toBeUndefined();
    const [row] = await waitOver([orphan], 120_000);
    expect([row!.status, row!.reason]).toEqual([
      "scored",
      expect.stringMatching(/^the candidate engine did not start/),
    ]);
    expect(row!.attempt).toBe(1);
    expect(worker!.child.exitCode).toBeNull();
  }, 180_000);
});
