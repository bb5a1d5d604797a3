import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { checkRedis, ensureRedis, type Service } from "../ops/services";
import { createRedis } from "./connection";
import { EVALUATIONS_QUEUE, type EvaluationJob } from "./evaluation-job";
import { enqueueEvaluation } from "./evaluations-queue";
import { ensureReconcileSchedule, MAINTENANCE_QUEUE, RECONCILE_SCHEDULER } from "./maintenance-queue";

let dir: string | undefined;
let redis: Service | undefined;

afterAll(async () => {
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the private Redis with the arena's own settings (append-only file, fsync every second)", () => {
  it("keeps a queued job and the upkeep's schedule across a SIGKILL and a restart, as they were", async () => {
    dir = await mkdtemp(join(tmpdir(), "arena-redis-aof-"));
    redis = await ensureRedis({ dir: join(dir, "redis"), port: 0 });
    const port = Number(new URL(redis.url).port);
    const open = () => {
      const connection = createRedis(redis!.url);
      return {
        connection,
        evaluations: new Queue<EvaluationJob>(EVALUATIONS_QUEUE, { connection, prefix: "aof" }),
        maintenance: new Queue(MAINTENANCE_QUEUE, { connection, prefix: "aof" }),
      };
    };
    const first = open();
    await enqueueEvaluation("evaluation-1", first.evaluations);
    expect(await ensureReconcileSchedule(first.maintenance, 30_000)).toBe(true);
    const asStored = (job: unknown) => JSON.parse(JSON.stringify(job)) as unknown;
    const before = asStored((await first.evaluations.getJob("evaluation-1"))!.toJSON());
    await first.evaluations.close();
    await first.maintenance.close();
    first.connection.disconnect();

    // killed outright, no shutdown and no final save, once Redis has written what it answered: under "everysec" it may
    // hold a write back for up to 2 s while the last fsync is slow (a busy disk), and those writes are the ones a
    // crash loses; once written, a killed process loses nothing the kernel holds
    const probe = createRedis(redis.url);
    try {
      const written = async () => /aof_buffer_length:0\r?\n/.test(await probe.info("persistence"));
      for (let i = 0; i < 100 && !(await written()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await written()).toBe(true);
    } finally {
      probe.disconnect();
    }
    process.kill(redis.pid!, "SIGKILL");
    const gone = () =>
      checkRedis(redis!.url, 500).then(
        () => false,
        () => true,
      );
    for (let i = 0; i < 100 && !(await gone()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await gone()).toBe(true);
    redis = await ensureRedis({ dir: join(dir, "redis"), port });

    const second = open();
    try {
      const job = await second.evaluations.getJob("evaluation-1");
      expect(asStored(job?.toJSON())).toEqual(before);
      expect(await job?.getState()).toBe("waiting");
      expect((await second.maintenance.getJobScheduler(RECONCILE_SCHEDULER))?.every).toBe(30_000);
      expect(await ensureReconcileSchedule(second.maintenance, 30_000)).toBe(false);
    } finally {
      await second.evaluations.close();
      await second.maintenance.close();
      second.connection.disconnect();
    }
  });
});
