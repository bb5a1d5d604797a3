export type AppErrorCode =
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "budget_exhausted"
  | "registration_closed"
  | "rate_limited"
  | "internal";

const STATUS: Record<AppErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  budget_exhausted: 429,
  registration_closed: 403,
  rate_limited: 429,
  internal: 500,
};

/** The one error the arena raises on purpose; anything else is internal, logged and masked. */
export class AppError extends Error {
  readonly code: AppErrorCode;
  constructor({ code, message }: { code: AppErrorCode; message: string }) {
    super(message);
    this.code = code;
    this.name = "AppError";
  }
  get status(): number {
    return STATUS[this.code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
