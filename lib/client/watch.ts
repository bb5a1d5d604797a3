import { eventJson, followEventStream, SseHttpError } from "../http/sse-reader";
import { getProfile } from "../protocol";
import { ClientError, EXIT } from "./exit-codes";
import { type Output, ProgressPrinter } from "./progress-printer";
import { CLIENT_USER_AGENT } from "./versions";

export interface WatchOptions {
  baseUrl: string;
  submissionId: string;
  out: Output;
  err: Output;
  /** A terminal: the running pass's bar is redrawn in place; elsewhere each pass prints one line when it ends. */
  tty: boolean;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export interface WatchResult {
  status: string;
  reason: string | null;
  reconnects: number;
}

/**
 * Follows an evaluation's event stream to its end, printing it as it comes; a dropped stream is resumed after the
 * last event seen (Last-Event-ID), so nothing is missed and nothing prints twice.
 */
export async function watchEvaluation(options: WatchOptions): Promise<WatchResult> {
  const printer = new ProgressPrinter(options.out, options.tty);
  const url = `${options.baseUrl}/api/submissions/${encodeURIComponent(options.submissionId)}/events`;
  let reconnects = 0;
  try {
    const result = await followEventStream(url, {
      headers: { "user-agent": CLIENT_USER_AGENT },
      signal: options.signal,
      fetch: options.fetch,
      isFinal: (m) => m.event === "status" && printer.state.finished,
      onReconnect: ({ lastEventId, error }) => {
        printer.clearBar();
        options.err.write(`the event stream dropped (${error}); resuming after event ${lastEventId || "0"}\n`);
      },
      onEvent: (message) => {
        const data = eventJson(message);
        if (message.event === "state" && printer.passes === null) {
          const profile = (data as { profile?: unknown } | null)?.profile;
          printer.passes = typeof profile === "string" ? (getProfile(profile)?.passes ?? null) : null;
        }
        // the state opens every connection; the numbered events after it tell the story in order, each once
        if (message.event !== "state") printer.apply(message.event, data, message.id === null ? 0 : Number(message.id));
        return undefined;
      },
    });
    reconnects = result.reconnects;
  } catch (error) {
    printer.clearBar();
    if (error instanceof SseHttpError) {
      const body = eventJson({ id: null, event: "", data: error.body }) as { error?: { message?: string } } | null;
      throw new ClientError(
        error.status === 404 ? EXIT.refused : EXIT.unreachable,
        `the arena refused the event stream (${error.status}): ${body?.error?.message ?? "no message"}`,
      );
    }
    throw new ClientError(EXIT.unreachable, `the event stream failed: ${(error as Error).message}`);
  }
  printer.clearBar();
  return { status: printer.state.status, reason: printer.state.reason, reconnects };
}
