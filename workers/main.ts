import { Worker } from "bullmq";
import { env } from "../lib/env";
import { workerIdFor } from "../lib/evaluations/lease";
import { reconcileEvaluationJobs } from "../lib/evaluations/reconcile-evaluation-jobs";
import { unavailableDatastore } from "../lib/health/datastore-unavailable";
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
  const workerId = workerIdFor();
  const backend = await createPodBackend();
  const prefix = QUEUE_PREFIX;
  // aborted on shutdown: runs detach from their pods (left running for the next worker) instead of waiting on them
  const shutdown = new AbortController();

  const evaluations = new Worker(
    EVALUATIONS_QUEUE,
    evaluationsProcessor({
      backend,
      workerId,
      shutdown: shutdown.signal,
      // the local backend's pods share this host's device: a pod left by a dead worker holds its slot until it ends
      ...(backend.name === "local" ? { slots: GPU_SLOTS } : {}),
    }),
    {
      connection: createRedis(),
      prefix,
      concurrency: GPU_SLOTS,
      // A job whose worker died is handed to another after this; the evaluation's lease decides who resumes it.
      stalledInterval: WORKER_STALLED_MS,
      maxStalledCount: 3,
      lockDuration: WORKER_STALLED_MS,
      // taken only once the queue is reconciled: after a Redis that lost its jobs, the oldest evaluations go first
      autorun: false,
    },
  );
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

  let stopping = false;
  const stop = async (why: string, code: number) => {
    if (stopping) return;
    stopping = true;
    logger.info("worker stopping", { why });
    keeper.stop();
    shutdown.abort();
    // the runs detach at once; a run still fetching is given a while, then the process goes all the same
    setTimeout(() => process.exit(code), 20_000).unref();
    await Promise.all([evaluations.close(), maintenance.close(), maintenanceQueue.close()]).catch((error: unknown) =>
      logger.error("closing the queues failed", { error: String(error) }),
    );
    process.exit(code);
  };
  process.on("SIGTERM", () => void stop("SIGTERM", 0));
  process.on("SIGINT", () => void stop("SIGINT", 0));
  // A datastore that cannot be reached is survived (every write waits it out); anything else may have left this
  // process in a state nobody planned for: it stops cleanly (its pods run on) and its supervisor starts a new one.
  const unexpected = (kind: string) => (error: unknown) => {
    const store = unavailableDatastore(error);
    logger.error(kind, {
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      survived: store !== null,
    });
    if (store === null) void stop(kind, 1);
  };
  process.on("unhandledRejection", unexpected("unhandled rejection"));
  process.on("uncaughtException", unexpected("uncaught exception"));
}

main().catch((error) => {
  logger.error("worker failed to start", { error: error instanceof Error ? error.stack : String(error) });
  process.exit(1);
});
