import type { Redis } from "ioredis";
import { AppError } from "./app-error";

const WINDOW_SECONDS = 60;

/** Counts failed authentications per address in a fixed window; past the limit the address is refused until it ends. */
export async function assertNotLimited(redis: Redis, namespace: string, address: string, limit: number): Promise<void> {
  const key = `${namespace}:auth-fail:${address}`;
  const count = Number((await redis.get(key)) ?? 0);
  if (count >= limit) {
    const ttl = await redis.ttl(key);
    throw new AppError({
      code: "rate_limited",
      message: `too many failed authentications from this address; try again in ${Math.max(ttl, 1)} s`,
    });
  }
}

export async function recordAuthFailure(redis: Redis, namespace: string, address: string): Promise<void> {
  const key = `${namespace}:auth-fail:${address}`;
  const count = await redis.incr(key);
  if (count === 1) await redis.expire(key, WINDOW_SECONDS);
}
