import { ZodError } from "zod";
import { unavailableDatastore } from "../health/datastore-unavailable";
import { logger } from "../logger";
import { AppError, isAppError } from "./app-error";

export interface ErrorBody {
  error: { code: string; message: string };
}

/** Maps any thrown value to the API's one error shape; internal errors are logged and masked. */
export function errorResponse(error: unknown, headers?: HeadersInit): Response {
  if (error instanceof ZodError) error = zodToAppError(error);
  const store = unavailableDatastore(error);
  if (store) {
    logUnavailable(store, error);
    error = unavailable(store);
  }
  if (isAppError(error)) {
    const merged = new Headers(headers);
    if (error.retryAfterSeconds !== undefined) merged.set("retry-after", String(error.retryAfterSeconds));
    return Response.json({ error: { code: error.code, message: error.message } } satisfies ErrorBody, {
      status: error.status,
      headers: merged,
    });
  }
  logger.error("internal error", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return Response.json({ error: { code: "internal", message: "internal error" } } satisfies ErrorBody, { status: 500 });
}

const UNAVAILABLE_LOG_EVERY_MS = 10_000;
const unavailableLogged = new Map<string, { at: number; since: number }>();

/** One line per datastore per 10 s while it is down, with how many requests were answered 503 since the last. */
function logUnavailable(store: "postgres" | "redis", error: unknown): void {
  const seen = unavailableLogged.get(store) ?? { at: 0, since: 0 };
  seen.since += 1;
  unavailableLogged.set(store, seen);
  if (Date.now() - seen.at < UNAVAILABLE_LOG_EVERY_MS) return;
  const message = error instanceof Error ? error.message : String(error);
  logger.warn("a datastore cannot be reached: answered 503", {
    store,
    answered: seen.since,
    error: message.split("\n").filter(Boolean).at(-1)?.slice(0, 200),
  });
  seen.at = Date.now();
  seen.since = 0;
}

/** The 503 for a datastore that cannot be reached: the client is told to come back, nothing of the server's words. */
export function unavailable(store: "postgres" | "redis"): AppError {
  const what = store === "postgres" ? "the arena's database" : "the arena's queue";
  return new AppError({ code: "unavailable", message: `${what} cannot be reached just now; try again shortly` });
}

export function zodToAppError(error: ZodError): AppError {
  const first = error.issues[0];
  const field = first && first.path.length > 0 ? first.path.join(".") : "body";
  return new AppError({ code: "invalid_request", message: `${field}: ${first?.message ?? "invalid"}` });
}
