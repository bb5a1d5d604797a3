import { hostname } from "node:os";
import { Worker } from "bullmq";
import { env } from "../lib/env";
import { reconcileEvaluationJobs } from "../lib/evaluations/reconcile-evaluation-jobs";
import { logger } from "../lib/logger";
import { createPodBackend } from "../lib/pods/create-pod-backend";
import { createRedis } from "../lib/queue/connection";
import { EVALUATIONS_QUEUE } from "../lib/queue/evaluation-job";
import { maintenanceQueue as createMaintenanceQueue, MAINTENANCE_QUEUE } from "../lib/queue/maintenance-queue";
import { evaluationsProcessor } from "./evaluations-processor";
import { keepQueueInStep } from "./keep-queue-in-step";
import { maintenanceProcessor } from "./maintenance-processor";

/** The worker process: one processor per queue, registered here. */
async function main(): Promise<void> {
  const { GPU_SLOTS, QUEUE_PREFIX, WORKER_STALLED_MS, RECONCILE_EVERY_MS } = env();
  const workerId = `${hostname()}:${process.pid}`;
  const backend = await createPodBackend();
  const prefix = QUEUE_PREFIX;

  const evaluations = new Worker(EVALUATIONS_QUEUE, evaluationsProcessor({ backend, workerId }), {
    connection: createRedis(),
    prefix,
    concurrency: GPU_SLOTS,
    // A job whose worker died is handed to another after this; the evaluation's lease decides who resumes it.
    stalledInterval: WORKER_STALLED_MS,
    maxStalledCount: 3,
    lockDuration: WORKER_STALLED_MS,
    // taken only once the queue is reconciled: after a Redis that lost its jobs, the oldest evaluations go first
    autorun: false,
  });
  const maintenanceConnection = createRedis();
  const maintenanceQueue = createMaintenanceQueue(maintenanceConnection, prefix);
  const maintenance = new Worker(MAINTENANCE_QUEUE, maintenanceProcessor({ backend }), {
    connection: createRedis(),
    prefix,
    concurrency: 1,
  });
  for (const w of [evaluations, maintenance]) {
    w.on("failed", (job, error) => logger.error("job failed", { queue: w.name, jobId: job?.id, error: error.message }));
    w.on("error", (error) => logger.error("worker error", { queue: w.name, error: error.message }));
  }
  const keeper = keepQueueInStep({
    queue: maintenanceQueue,
    everyMs: RECONCILE_EVERY_MS,
    reconcile: () => reconcileEvaluationJobs(undefined, { wait: true }),
    connection: maintenanceConnection,
  });
  await keeper.check("start-up");
  void evaluations
    .run()
    .catch((error: unknown) => logger.error("evaluations worker stopped", { error: String(error) }));

  logger.info("worker started", { workerId, backend: backend.name, slots: GPU_SLOTS });

  const stop = async (signal: string) => {
    logger.info("worker stopping", { signal });
    keeper.stop();
    await Promise.all([evaluations.close(), maintenance.close(), maintenanceQueue.close()]);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  logger.error("worker failed to start", { error: error instanceof Error ? error.stack : String(error) });
  process.exit(1);
});
