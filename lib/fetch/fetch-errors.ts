/** Who is at fault decides the ending: the arena's faults void and refund, the submission's are charged. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly fault: "arena" | "submission",
  ) {
    super(message);
    this.name = "FetchError";
  }
}
