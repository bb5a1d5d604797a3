/** An error answered in vLLM's body shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = status === 404 ? "NotFoundError" : status >= 500 ? "InternalServerError" : "BadRequestError",
  ) {
    super(message);
  }

  body(): { object: "error"; message: string; type: string; param: null; code: number } {
    return { object: "error", message: this.message, type: this.type, param: null, code: this.status };
  }
}
