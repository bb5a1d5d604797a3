import { unavailableDatastore } from "../health/datastore-unavailable";
import { logger } from "../logger";

export interface BlipOptions {
  /** Checked before each retry: once true, the write no longer matters and `undefined` is returned. */
  abandoned?: () => boolean;
  /** Log fields (the evaluation, its attempt). */
  fields?: Record<string, unknown>;
  /** The pauses between tries: the first, doubled up to the last. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs a write (or a read it needs) through a datastore outage: while PostgreSQL or Redis cannot be reached, it is
 * tried again with backoff (0.5 s doubling to 5 s) for as long as the outage lasts, logged when it starts failing
 * and when it goes through again; any other error is thrown at once (a refused query does not heal by waiting).
 * Callers make the write safe to run twice (a fencing attempt, a sequence number, an upsert).
 */
export async function throughBlips<T>(
  what: string,
  write: () => Promise<T>,
  options: BlipOptions = {},
): Promise<T | undefined> {
  const sleep = options.sleep ?? wait;
  const maxDelay = options.maxDelayMs ?? 5_000;
  let delay = options.firstDelayMs ?? 500;
  let failures = 0;
  const since = Date.now();
  for (;;) {
    if (failures > 0 && options.abandoned?.()) return undefined;
    try {
      const result = await write();
      if (failures > 0)
        logger.info("the datastore answers again", {
          ...options.fields,
          what,
          tries: failures + 1,
          seconds: Math.round((Date.now() - since) / 100) / 10,
        });
      return result;
    } catch (error) {
      const store = unavailableDatastore(error);
      if (!store) throw error;
      failures += 1;
      // the first failure and then every tenth: an outage of minutes is a few lines, not hundreds
      if (failures === 1 || failures % 10 === 0)
        logger.warn(`${store === "postgres" ? "PostgreSQL" : "Redis"} cannot be reached: trying again`, {
          ...options.fields,
          what,
          failures,
          error: String(error).slice(0, 300),
        });
    }
    await sleep(delay);
    delay = Math.min(delay * 2, maxDelay);
  }
}
