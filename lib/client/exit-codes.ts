/**
 * The participant's clients' exit codes, the same in the TypeScript CLI and the Python client, so a script can tell
 * a result it must read from a request it must fix.
 */
export const EXIT = {
  /** Done: submitted, printed, or (waiting or watching) the evaluation scored above 0; locally, every gate passed. */
  ok: 0,
  /** The evaluation ended without a score above 0 (failed, void, cancelled, or a gate scored it 0); locally, a FAIL. */
  notScored: 1,
  /** Bad arguments or environment: nothing was sent. */
  usage: 2,
  /** The engine directory cannot be sent as it is (launch.sh, links, size): nothing was sent. */
  engineRefused: 3,
  /** The arena refused the request (its 4xx: the token, the budget, a field); no budget was spent. */
  refused: 4,
  /** The arena could not be reached, or failed on its side (5xx); try again later. */
  unreachable: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports in one message and ends with its exit code. */
export class ClientError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = "ClientError";
  }
}
