import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { logger } from "../lib/logger";
import { ensureReconcileSchedule } from "../lib/queue/maintenance-queue";

export interface QueueKeeper {
  /** Re-creates the schedule when missing and reconciles; resolves when done, never rejects. */
  check(why: "start-up" | "timer" | "reconnect"): Promise<void>;
  stop(): void;
}

/**
 * What survives a Redis that lost its data, from the worker process itself: at start-up, on its own timer (the
 * schedule lives in Redis, so it cannot bring itself back) and each time `connection` reconnects, the upkeep's
 * repeatable schedule is re-created when missing and the queue is reconciled with PostgreSQL. One check at a time:
 * while Redis is down a check waits on it, and the timer's ticks are skipped rather than piled up.
 */
export function keepQueueInStep(deps: {
  queue: Queue;
  everyMs: number;
  reconcile: () => Promise<unknown>;
  connection: Redis;
}): QueueKeeper {
  let inFlight: Promise<void> | undefined;
  let started = false;
  const run = async (why: string) => {
    try {
      const recreated = await ensureReconcileSchedule(deps.queue, deps.everyMs);
      if (recreated && why !== "start-up")
        logger.warn("the upkeep's schedule was missing from Redis: re-created", { why });
      if (recreated || why !== "timer") await deps.reconcile();
    } catch (error) {
      logger.error("keeping the queue in step failed", { why, error: String(error) });
    }
  };
  const check = (why: "start-up" | "timer" | "reconnect") => {
    if (why === "start-up") started = true;
    if (inFlight) return inFlight;
    inFlight = run(why).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const timer = setInterval(() => void check("timer"), deps.everyMs);
  timer.unref();
  // "ready" follows every (re)connection; the first one is the start-up's
  const onReady = () => {
    if (started) void check("reconnect");
  };
  deps.connection.on("ready", onReady);
  return {
    check,
    stop() {
      clearInterval(timer);
      deps.connection.off("ready", onReady);
    },
  };
}
