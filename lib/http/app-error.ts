export type AppErrorCode =
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "budget_exhausted"
  | "registration_closed"
  | "rate_limited"
  | "payload_too_large"
  | "unsupported_media_type"
  | "unavailable"
  | "internal";

const STATUS: Record<AppErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  // a spent budget does not come back with time: 403, not a 429 a client would retry after waiting
  budget_exhausted: 403,
  registration_closed: 403,
  rate_limited: 429,
  payload_too_large: 413,
  unsupported_media_type: 415,
  // a datastore cannot be reached: nothing was done, and the same request will do later
  unavailable: 503,
  internal: 500,
};

/** When a client is told to try again after a datastore could not be reached. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

/** The one error the arena raises on purpose; anything else is internal, logged and masked. */
export class AppError extends Error {
  readonly code: AppErrorCode;
  /** Sent as Retry-After: every 429 and 503 carries one. */
  readonly retryAfterSeconds: number | undefined;
  constructor({
    code,
    message,
    retryAfterSeconds,
  }: { code: AppErrorCode; message: string; retryAfterSeconds?: number }) {
    super(message);
    this.code = code;
    this.name = "AppError";
    const seconds =
      retryAfterSeconds ??
      (code === "rate_limited" ? 1 : code === "unavailable" ? UNAVAILABLE_RETRY_SECONDS : undefined);
    this.retryAfterSeconds = seconds === undefined ? undefined : Math.max(1, Math.ceil(seconds));
  }
  get status(): number {
    return STATUS[this.code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
