import type { IncomingHttpHeaders } from "node:http";
import { FetchError } from "../fetch-errors";

/** What a request was for, so every message names the repository, the commit and the file. */
export interface HubSubject {
  repository: string;
  revision: string;
  path?: string;
}

export function describeSubject(s: HubSubject): string {
  const speculator = `speculator ${s.repository}@${s.revision}`;
  return s.path === undefined ? speculator : `file "${s.path}" of ${speculator}`;
}

/** A failure worth another try: the Hub busy or failing, or the connection dropped or stalled. */
export class TransientHubError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "TransientHubError";
  }
}

/** huggingface_hub's `_DEFAULT_RETRY_ON_STATUS_CODES` (utils/_http.py). */
const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
]);
/** The Hub's message for a token it does not know: the arena's token, not the participant's repository. */
const INVALID_TOKEN = "Invalid credentials in Authorization header";
/** hf_raise_for_status recognises a disabled repository by this message, not by an error code. */
const DISABLED = "Access to this resource is disabled.";

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The server's own words: `X-Error-Message`, else a JSON body's `error`, else a short text body. */
function serverMessage(headers: IncomingHttpHeaders, body: string): string | undefined {
  const fromHeader = header(headers, "x-error-message");
  if (fromHeader) return fromHeader;
  try {
    const error = (JSON.parse(body) as { error?: unknown }).error;
    if (typeof error === "string") return error;
  } catch {
    // not JSON: the text itself, unless it is a page
  }
  const text = body.trim();
  return text && !text.startsWith("<") ? text.slice(0, 200) : undefined;
}

/**
 * Seconds to wait before the next try, as the Hub says it: `Retry-After` (delay-seconds only, as
 * huggingface_hub's `_parse_retry_after`), or on a 429 the `RateLimit` header's `t` once `r` is 0.
 */
export function retryAfterMs(status: number, headers: IncomingHttpHeaders): number | undefined {
  const retryAfter = header(headers, "retry-after")?.trim();
  if (retryAfter && /^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
  const rateLimit = header(headers, "ratelimit");
  if (status !== 429 || !rateLimit) return undefined;
  const params = Object.fromEntries(rateLimit.split(";").map((p) => p.trim().split("=") as [string, string?]));
  return params.r === "0" && /^\d+$/.test(params.t ?? "") ? Number(params.t) * 1000 : undefined;
}

/**
 * What an answer other than 200 or a redirect means, in the order hf_raise_for_status reads it
 * (huggingface_hub utils/_http.py): the participant's repository, the arena's token, or a failure to retry.
 */
export function hubAnswerError(
  status: number,
  headers: IncomingHttpHeaders,
  body: string,
  subject: HubSubject,
): FetchError | TransientHubError {
  const code = header(headers, "x-error-code");
  const message = serverMessage(headers, body);
  const said = `HTTP ${status}${code ? ` ${code}` : ""}${message ? `: ${message}` : ""}`;
  const repo = `speculator repository ${subject.repository}`;
  if (RETRIED_STATUSES.has(status)) {
    return new TransientHubError(
      `the Hub answered ${said} for ${describeSubject(subject)}`,
      retryAfterMs(status, headers),
    );
  }
  if (code === "RevisionNotFound") {
    return new FetchError(`${repo} has no commit ${subject.revision} on the Hub (${said})`, "submission");
  }
  if (code === "EntryNotFound") {
    return new FetchError(
      `${describeSubject(subject)} is listed, but the Hub has no content for it (${said})`,
      "submission",
    );
  }
  if (code === "GatedRepo") {
    return new FetchError(
      `${repo} is gated on the Hub and the arena has not been granted access (${said}); ungate it or make it public`,
      "submission",
    );
  }
  if (code === "DisabledRepo" || message === DISABLED) {
    return new FetchError(`${repo} is disabled on the Hub (${said})`, "submission");
  }
  if (status === 401 && message === INVALID_TOKEN) {
    return new FetchError(`the Hub refused the arena's HUB_TOKEN (${said})`, "arena");
  }
  // The Hub answers 401 RepoNotFound both for a missing repository and for a private one the caller cannot see.
  if (code === "RepoNotFound" || status === 401) {
    return new FetchError(
      `${repo} was not found on the Hub, or is private and the arena has no access to it (${said})`,
      "submission",
    );
  }
  return new FetchError(
    `the Hub answered ${said} for ${describeSubject(subject)}, which the arena does not understand`,
    "arena",
  );
}

function errorCode(error: unknown): string | undefined {
  const own = (error as { code?: unknown })?.code;
  if (typeof own === "string") return own;
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code;
  return typeof cause === "string" ? cause : undefined;
}

/** A transport failure as a failure to retry, or undefined when `error` is no transport failure. */
export function networkError(error: unknown, subject: HubSubject): TransientHubError | undefined {
  if (error instanceof TransientHubError) return error;
  const code = errorCode(error);
  if (!code || !NETWORK_CODES.has(code)) return undefined;
  const what = describeSubject(subject);
  if (code === "UND_ERR_HEADERS_TIMEOUT") return new TransientHubError(`the Hub timed out answering for ${what}`);
  if (code === "UND_ERR_BODY_TIMEOUT")
    return new TransientHubError(`the download of ${what} timed out, stalled mid-body`);
  if (code === "UND_ERR_CONNECT_TIMEOUT") return new TransientHubError(`connecting to the Hub timed out for ${what}`);
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new TransientHubError(`the Hub could not be reached for ${what} (${code})`);
  }
  return new TransientHubError(`the connection dropped while fetching ${what} (${code})`);
}
