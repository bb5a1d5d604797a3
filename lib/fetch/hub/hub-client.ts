import { setTimeout as sleep } from "node:timers/promises";
import { Agent, type Dispatcher, request } from "undici";
import { FetchError } from "../fetch-errors";
import { describeSubject, type HubSubject, hubAnswerError, networkError } from "./hub-errors";

export interface HubHttpOptions {
  connectTimeoutMs: number;
  /** How long the Hub or its CDN may take to send headers. */
  headersTimeoutMs: number;
  /** How long a body may go without a byte before the download counts as stalled. */
  bodyTimeoutMs: number;
  /** Tries per request, the first included. */
  tries: number;
  /** The first wait between tries; it doubles up to `maxBackoffMs` (huggingface_hub: 1 s up to 8 s). */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_HUB_HTTP: HubHttpOptions = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 60_000,
  tries: 5,
  backoffMs: 1_000,
  maxBackoffMs: 8_000,
};

const MAX_REDIRECTS = 5;
/** The most a `Retry-After` from the Hub may hold the fetch up for, per try. */
const MAX_RETRY_AFTER_MS = 60_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export type HubBody = Dispatcher.ResponseData["body"];

/** Reads at most `limit` bytes of a body as text, then lets the rest go. */
export async function readText(body: HubBody, limit: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
    if (length > limit) {
      body.destroy();
      return { text: Buffer.concat(chunks).subarray(0, limit).toString("utf8"), truncated: true };
    }
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated: false };
}

/**
 * The Hub over HTTP as huggingface_hub speaks to it: the token goes to the Hub's own origin only (a redirect
 * to a CDN carries a signed URL and must not carry it, as `_get_metadata_or_catch_error` drops it), relative
 * redirects (a renamed repository, `resolve-cache`) keep it, and transient failures are tried again.
 */
export class HubClient {
  private readonly agent: Agent;
  private readonly origin: string;

  constructor(
    baseUrl: string,
    private readonly token: string | undefined,
    readonly options: HubHttpOptions,
  ) {
    this.origin = new URL(baseUrl).origin;
    this.agent = new Agent({
      connect: { timeout: options.connectTimeoutMs },
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
    });
  }

  /** GETs `url`, following redirects, and gives the 200 answer; any other ending throws. */
  async get(url: string, subject: HubSubject): Promise<Dispatcher.ResponseData> {
    let at = new URL(url);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const own = at.origin === this.origin;
      const response = await request(at, {
        dispatcher: this.agent,
        headers: {
          // The size and the digests are of the stored bytes, so nothing may be compressed on the way.
          "accept-encoding": "identity",
          ...(own && this.token ? { authorization: `Bearer ${this.token}` } : {}),
        },
      });
      const commit = response.headers["x-repo-commit"];
      if (own && typeof commit === "string" && commit !== subject.revision) {
        await response.body.dump();
        throw new FetchError(`the Hub served commit ${commit} when asked for ${describeSubject(subject)}`, "arena");
      }
      if (response.statusCode === 200) return response;
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode) && typeof location === "string") {
        await response.body.dump();
        at = new URL(location, at);
        if (at.protocol !== "https:" && at.protocol !== "http:") break;
        continue;
      }
      const { text } = await readText(response.body, 16 * 1024);
      throw hubAnswerError(response.statusCode, response.headers, text, subject);
    }
    throw new FetchError(`the Hub redirected too often (or off HTTP) for ${describeSubject(subject)}`, "arena");
  }

  /** Runs `attempt` until it succeeds, fails for good, or has been tried `tries` times, backing off in between. */
  async withRetries<T>(subject: HubSubject, attempt: () => Promise<T>): Promise<T> {
    for (let tried = 1; ; tried++) {
      try {
        return await attempt();
      } catch (error) {
        const transient = networkError(error, subject);
        if (!transient) throw error;
        if (tried >= this.options.tries) {
          throw new FetchError(`${transient.message} (gave up after ${tried} tries)`, "arena");
        }
        const backoff = Math.min(this.options.backoffMs * 2 ** (tried - 1), this.options.maxBackoffMs);
        await sleep(Math.max(backoff, Math.min(transient.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)));
      }
    }
  }

  close(): Promise<void> {
    return this.agent.destroy();
  }
}
