export type Datastore = "postgres" | "redis";

/** The driver adapter's words for a PostgreSQL it could not reach or that dropped the connection. */
const UNREACHABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
/**
 * Prisma's codes for the same: can't reach, timed out, server closed the connection, pool timeout. P2010 (a raw
 * query failed) says nothing by itself: its driver error does.
 */
const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
/** SQLSTATEs of a server going away: connection exceptions, admin/crash shutdown, starting up, too many clients. */
const PG_STATES = /^(08...|57P01|57P02|57P03|53300)$/;
const PG_MESSAGES =
  /Can't reach database server|Connection terminated|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery mode)|timeout exceeded when trying to connect|ECONNREFUSED|ECONNRESET/i;
/**
 * node-postgres itself, for a connection the server cut between two queries of an open transaction (a restart): the
 * next query is refused by the client, unwrapped and with no code. Tried again, the pool opens a fresh connection.
 */
const PG_CLIENT_MESSAGES = /^Client has encountered a connection error and is not queryable$/;
/** ioredis: a command rejected while the connection is down, its retries spent, or its timeout past. */
const REDIS_NAMES = new Set(["MaxRetriesPerRequestError"]);
const REDIS_MESSAGES =
  /^(Connection is closed\.?|Stream isn't writeable and enableOfflineQueue options is false|Command timed out|Reached the max retries per request limit.*)$/;

type Loose = { name?: unknown; code?: unknown; message?: unknown; cause?: unknown; meta?: unknown };

/**
 * Which datastore an error says could not be reached (down, restarting, the connection cut), or null: a query the
 * datastore refused, a bug, anything else. Reads Prisma's errors (over the pg driver adapter) and ioredis's; the
 * cause chain too, as wrappers keep the original there.
 */
export function unavailableDatastore(error: unknown): Datastore | null {
  for (let e = error as Loose | undefined, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const name = typeof e.name === "string" ? e.name : "";
    const code = typeof e.code === "string" ? e.code : "";
    const message = typeof e.message === "string" ? e.message : "";
    if (REDIS_NAMES.has(name) || REDIS_MESSAGES.test(message)) return "redis";
    if (name === "PrismaClientInitializationError" || PRISMA_CODES.has(code)) return "postgres";
    if (PG_CLIENT_MESSAGES.test(message)) return "postgres";
    const driver = (e.meta as { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown } } } | undefined)
      ?.driverAdapterError?.cause;
    if (driver) {
      if (UNREACHABLE_KINDS.has(String(driver.kind))) return "postgres";
      if (driver.kind === "postgres" && PG_STATES.test(String(driver.code))) return "postgres";
    }
    if (name.startsWith("PrismaClient") && PG_MESSAGES.test(message)) return "postgres";
    if (name === "DriverAdapterError" || /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT)$/.test(code)) {
      if (PG_MESSAGES.test(message) || code) return "postgres";
    }
    e = e.cause as Loose | undefined;
  }
  return null;
}

export const isDatastoreUnavailable = (error: unknown): boolean => unavailableDatastore(error) !== null;
