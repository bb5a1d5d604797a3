import { Redis } from "ioredis";
import { env } from "../env";
import { logger } from "../logger";

const globalForRedis = globalThis as unknown as { arenaRedis?: Redis };

/**
 * A connection for BullMQ's workers, whose commands wait for Redis to come back however long it is away
 * (`maxRetriesPerRequest: null`, as BullMQ needs for a worker's blocking commands).
 */
export function createRedis(url: string = env().REDIS_URL): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
}

/** How long a command of a fail-fast connection may wait for Redis, queued or sent, before it is rejected. */
export const FAIL_FAST_COMMAND_MS = 1_500;

/**
 * A connection for calls someone is waiting on (the web process's: queueing a job, the rate limiter, publishing an
 * event's notice): while Redis cannot be reached, each command is rejected within FAIL_FAST_COMMAND_MS instead of
 * waiting for it, so a request is answered 503 and a worker's relay goes on ("failing fast when Redis is down", in
 * BullMQ's words). It still reconnects by itself; commands made while it first connects wait for that.
 */
export function createFailFastRedis(url: string = env().REDIS_URL): Redis {
  const client = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: FAIL_FAST_COMMAND_MS,
    connectTimeout: 2_000,
    lazyConnect: false,
  });
  // each reconnect attempt while Redis is down is an error event: one line per outage, and one when it is back
  let down = false;
  client.on("error", (error: Error) => {
    if (!down)
      logger.warn("Redis cannot be reached: calls that need it fail fast until it is back", { error: error.message });
    down = true;
  });
  client.on("ready", () => {
    if (down) logger.info("Redis answers again");
    down = false;
  });
  return client;
}

/** The process's shared command connection, fail-fast (subscribers and BullMQ's workers create their own). */
export function redis(): Redis {
  globalForRedis.arenaRedis ??= createFailFastRedis();
  return globalForRedis.arenaRedis;
}

/** PING on the shared connection: rejects within FAIL_FAST_COMMAND_MS when Redis cannot be reached. */
export async function pingRedis(): Promise<void> {
  const client = redis();
  if (client.status === "end") throw new Error("Connection is closed.");
  await client.ping();
}

export async function resetRedisForTests(): Promise<void> {
  const client = globalForRedis.arenaRedis;
  globalForRedis.arenaRedis = undefined;
  if (client) await client.quit().catch(() => client.disconnect());
}
