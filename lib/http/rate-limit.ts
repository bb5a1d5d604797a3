import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from "rate-limiter-flexible";
import { env } from "../env";
import { redis } from "../queue/connection";
import { AppError } from "./app-error";

/** A fixed window: `points` per `durationSeconds`, counted per key. */
export interface Limit {
  name: string;
  points: number;
  durationSeconds: number;
  /** What the 429 says, before "try again in N s". */
  refusal: string;
}

/** The arena's limits, read from the environment (lib/env.ts documents each). */
export const limits = {
  apiPerAddress: (): Limit => ({
    name: "api-address",
    points: env().API_REQUESTS_PER_MINUTE_PER_ADDRESS,
    durationSeconds: 60,
    refusal: "too many requests from this address",
  }),
  apiPerToken: (): Limit => ({
    name: "api-token",
    points: env().API_REQUESTS_PER_MINUTE_PER_TOKEN,
    durationSeconds: 60,
    refusal: "too many requests with this token",
  }),
  authFailures: (): Limit => ({
    name: "auth-fail",
    points: env().AUTH_FAILURES_PER_MINUTE,
    durationSeconds: 60,
    refusal: "too many failed authentications from this address",
  }),
  registrations: (): Limit => ({
    name: "register",
    points: env().REGISTRATIONS_PER_HOUR_PER_ADDRESS,
    durationSeconds: 3600,
    refusal: "too many registrations from this address",
  }),
  signInPerAddress: (): Limit => ({
    name: "sign-in-address",
    points: env().SIGN_IN_FAILURES_PER_ADDRESS,
    durationSeconds: env().SIGN_IN_WINDOW_SECONDS,
    refusal: "too many sign-in attempts from this address",
  }),
  signInAll: (): Limit => ({
    name: "sign-in-all",
    points: env().SIGN_IN_FAILURES_PER_WINDOW,
    durationSeconds: env().SIGN_IN_WINDOW_SECONDS,
    refusal: "too many failed sign-ins to the operator account",
  }),
};

/** How long a Redis call may take before the process's own in-memory limiter answers in its place. */
const STORE_TIMEOUT_MS = 1_000;

type Limiters = Map<string, RateLimiterAbstract>;
const byClient = new WeakMap<Redis, Limiters>();

/**
 * The limiter for a limit: Redis's atomic window (one Lua script: SET NX EX, then INCRBY and PTTL), so concurrent
 * requests never slip past the count and every key expires; while Redis is down or slow, an in-memory window of the
 * same size per process, so limits still hold and nothing waits on Redis.
 */
function limiterFor(limit: Limit): RateLimiterAbstract {
  const client = redis();
  let limiters = byClient.get(client);
  if (!limiters) {
    limiters = new Map();
    byClient.set(client, limiters);
  }
  const keyPrefix = `${env().QUEUE_PREFIX}:rl:${limit.name}`;
  const id = `${keyPrefix}:${limit.points}:${limit.durationSeconds}`;
  let limiter = limiters.get(id);
  if (!limiter) {
    const options = { keyPrefix, points: limit.points, duration: limit.durationSeconds };
    const insurance = new RateLimiterMemory(options);
    const store = new RateLimiterRedis({
      ...options,
      storeClient: client,
      rejectIfRedisNotReady: true,
      insuranceLimiter: insurance,
    });
    // The wrapper's type is RateLimiterInsuredAbstract, which the library's own types leave out of RateLimiterAbstract.
    limiter = new RLWrapperTimeouts({
      limiter: store,
      timeoutMs: STORE_TIMEOUT_MS,
      insuranceLimiter: insurance,
    }) as unknown as RateLimiterAbstract;
    limiters.set(id, limiter);
  }
  return limiter;
}

function refused(limit: Limit, msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError({
    code: "rate_limited",
    message: `${limit.refusal}; try again in ${seconds} s`,
    retryAfterSeconds: seconds,
  });
}

/** How long a fresh connection is waited for, so a process's first requests are counted in Redis too. */
const FIRST_CONNECT_MS = 500;

const firstConnects = new WeakMap<Redis, Promise<void>>();

/**
 * A connection still making its first connect is given a moment, once: the limiter answers from memory whenever
 * Redis is not ready, and counting a new process's first requests apart from Redis would let them slip past the
 * shared count. After that first connect (or its failure), nothing waits for Redis here.
 */
function firstConnect(client: Redis): Promise<void> {
  let waited = firstConnects.get(client);
  if (!waited) {
    waited = !["wait", "connecting", "connect"].includes(client.status)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            client.off("ready", done);
            client.off("error", done);
            resolve();
          };
          const timer = setTimeout(done, FIRST_CONNECT_MS);
          client.once("ready", done);
          client.once("error", done);
        });
    firstConnects.set(client, waited);
  }
  return waited;
}

/** Counts one request against `key`; past the limit throws a 429 whose Retry-After says when the window ends. */
export async function consume(limit: Limit, key: string, points = 1): Promise<void> {
  await firstConnect(redis());
  try {
    await limiterFor(limit).consume(key, points);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw refused(limit, error.msBeforeNext);
    throw error;
  }
}

/** Gives back a point counted before the outcome was known (a sign-in that succeeded). */
export async function refund(limit: Limit, key: string, points = 1): Promise<void> {
  await limiterFor(limit).reward(key, points);
}
