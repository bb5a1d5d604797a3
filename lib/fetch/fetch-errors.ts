/** Who is at fault decides the ending: the arena's faults void and refund, the submission's are charged. */
export class FetchError extends Error {
  /** `message` is public (the evaluation's reason): no server path in it; `cause` keeps the raw error for the log. */
  constructor(
    message: string,
    readonly fault: "arena" | "submission",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "FetchError";
  }
}
