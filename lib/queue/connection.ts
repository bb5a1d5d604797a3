import { Redis } from "ioredis";
import { env } from "../env";

const globalForRedis = globalThis as unknown as { arenaRedis?: Redis };

/** A connection for BullMQ (which needs maxRetriesPerRequest null) and plain commands. */
export function createRedis(url: string = env().REDIS_URL): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
}

/** The process's shared command connection (subscribers must create their own). */
export function redis(): Redis {
  globalForRedis.arenaRedis ??= createRedis();
  return globalForRedis.arenaRedis;
}

export async function resetRedisForTests(): Promise<void> {
  const client = globalForRedis.arenaRedis;
  globalForRedis.arenaRedis = undefined;
  if (client) await client.quit().catch(() => client.disconnect());
}
