import { ZodError } from "zod";
import { logger } from "../logger";
import { AppError, isAppError } from "./app-error";

export interface ErrorBody {
  error: { code: string; message: string };
}

/** Maps any thrown value to the API's one error shape; internal errors are logged and masked. */
export function errorResponse(error: unknown, headers?: HeadersInit): Response {
  if (error instanceof ZodError) error = zodToAppError(error);
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

export function zodToAppError(error: ZodError): AppError {
  const first = error.issues[0];
  const field = first && first.path.length > 0 ? first.path.join(".") : "body";
  return new AppError({ code: "invalid_request", message: `${field}: ${first?.message ?? "invalid"}` });
}
