import { z } from "zod";
import { db } from "../db/client";
import { pingRedis } from "../queue/connection";
import type { Datastore } from "./datastore-unavailable";

/** How long each datastore has to answer before it counts as unreachable. */
export const HEALTH_TIMEOUT_MS = 1_500;

export const healthSchema = z
  .object({
    status: z.literal("ok"),
    checks: z
      .object({ postgres: z.literal("ok"), redis: z.literal("ok") })
      .strict()
      .meta({ description: "each datastore the arena needs, answering" }),
  })
  .strict();

export type Health = { ok: true } | { ok: false; unreachable: Datastore[] };

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Whether PostgreSQL (`SELECT 1`) and Redis (`PING`) answer, each within HEALTH_TIMEOUT_MS, asked at once: what a
 * readiness probe needs (GET /api/health).
 */
export async function checkHealth(
  checks: Record<Datastore, () => Promise<unknown>> = {
    postgres: () => db().$queryRaw`SELECT 1`,
    redis: pingRedis,
  },
): Promise<Health> {
  const stores = Object.keys(checks) as Datastore[];
  const answers = await Promise.allSettled(stores.map((store) => within(HEALTH_TIMEOUT_MS, checks[store]())));
  const unreachable = stores.filter((_, i) => answers[i]!.status === "rejected");
  return unreachable.length === 0 ? { ok: true } : { ok: false, unreachable };
}
