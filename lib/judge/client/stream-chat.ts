import type { Dispatcher } from "undici";
import { nowMs } from "../clock";
import { SseParser } from "./sse-parser";
import { StreamBuffers } from "./stream-buffers";

export interface StreamUsage {
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
}

/**
 * What one streamed chat completion did, timed on the judge's clock (`nowMs`: float milliseconds) from the origin
 * the caller gave (0 when none: the clock's own).
 */
export interface StreamOutcome {
  sentMs: number;
  status: number | null;
  /** Arrival of the transport chunk that carried the first non-empty content. */
  firstTokenMs: number | null;
  /** Arrival of the transport chunk that carried the last non-empty content (never the usage chunk). */
  lastTokenMs: number | null;
  doneMs: number;
  /** One entry per content-bearing SSE event: its transport chunk's arrival time. */
  chunkMs: number[];
  /** Cumulative content length (UTF-16 units) after each content event. */
  chunkEnds: number[];
  text: string;
  finishReason: string | null;
  sawDone: boolean;
  usage: StreamUsage;
  error: string | null;
}

interface ChoiceDelta {
  delta?: { content?: string | null };
  finish_reason?: string | null;
}
interface ChunkJson {
  choices?: ChoiceDelta[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
  };
  error?: unknown;
}

/**
 * A reply's text as its pieces arrive. Every `FOLD` pieces are joined into one string, so that a long reply in flight
 * holds a few strings rather than one per event (each held one is copied by every young-generation GC it lives
 * through).
 */
class TextParts {
  private static readonly FOLD = 32;
  private folded: string[] = [];
  private pieces: string[] = [];

  push(piece: string): void {
    this.pieces.push(piece);
    if (this.pieces.length === TextParts.FOLD) {
      this.folded.push(this.pieces.join(""));
      this.pieces.length = 0;
    }
  }

  join(): string {
    return this.folded.join("") + this.pieces.join("");
  }
}

function describeError(err: unknown): string {
  if (typeof err === "string") return err;
  if (err && typeof err === "object" && "message" in err) return String((err as { message: unknown }).message);
  return JSON.stringify(err);
}

/**
 * Posts a streamed chat completion and records every chunk's arrival time before parsing it. Never throws: HTTP,
 * transport and in-stream errors land in `error`. Per content event it keeps two numbers in typed arrays (the
 * lane's `buffers`, reused from reply to reply) and the content's string; nothing else outlives the event.
 */
export async function streamChat(
  url: string,
  body: unknown,
  options: {
    dispatcher: Dispatcher;
    signal?: AbortSignal;
    /** Each piece of content as its event is parsed (the reply's token count starts before the reply ends). */
    onContent?: (text: string) => void;
    /** Where times are measured from, on the judge's clock (`nowMs`); default 0. */
    originMs?: number;
    /** The chunk times' and ends' storage, reused by the caller's next request (a lane's). */
    buffers?: StreamBuffers;
  },
): Promise<StreamOutcome> {
  const origin = options.originMs ?? 0;
  const parser = new SseParser();
  const buffers = options.buffers ?? new StreamBuffers();
  buffers.reset();
  const out: StreamOutcome = {
    sentMs: Number.NaN,
    status: null,
    firstTokenMs: null,
    lastTokenMs: null,
    doneMs: 0,
    chunkMs: [],
    chunkEnds: [],
    text: "",
    finishReason: null,
    sawDone: false,
    usage: { promptTokens: null, completionTokens: null, cachedTokens: null },
    error: null,
  };
  const text = new TextParts();
  let length = 0;
  /** The arrival of the transport chunk being parsed. */
  let arrived = 0;
  const payload = JSON.stringify(body);

  const onEvent = (event: string, data: string) => {
    if (out.sawDone) return;
    if (data === "[DONE]") {
      out.sawDone = true;
      return;
    }
    if (event === "error") {
      out.error ??= `stream error event: ${data.slice(0, 300)}`;
      return;
    }
    let json: ChunkJson;
    try {
      json = JSON.parse(data) as ChunkJson;
    } catch {
      out.error ??= `unparseable stream data: ${data.slice(0, 200)}`;
      return;
    }
    if (json.error !== undefined) {
      out.error ??= `stream error: ${describeError(json.error)}`;
      return;
    }
    const choice = json.choices?.[0];
    const content = choice?.delta?.content;
    if (typeof content === "string" && content.length > 0) {
      text.push(content);
      options.onContent?.(content);
      length += content.length;
      buffers.push(arrived, length);
      out.firstTokenMs ??= arrived;
      out.lastTokenMs = arrived;
    }
    if (choice?.finish_reason) out.finishReason = choice.finish_reason;
    if (json.usage) {
      out.usage = {
        promptTokens: json.usage.prompt_tokens ?? null,
        completionTokens: json.usage.completion_tokens ?? null,
        cachedTokens: json.usage.prompt_tokens_details?.cached_tokens ?? null,
      };
    }
  };

  try {
    const status = await dispatchStream(url, payload, options, {
      sent: (t) => {
        out.sentMs = t - origin;
      },
      data: (t, chunk) => {
        arrived = t - origin;
        parser.feed(chunk, onEvent);
      },
    });
    out.status = status.code;
    if (status.code !== 200) out.error = `http ${status.code}: ${status.body.slice(0, 300)}`;
    else if (!out.sawDone && out.error === null) out.error = "stream ended without [DONE]";
  } catch (err) {
    out.error ??= `transport: ${describeError(err)}`;
  }
  const done = nowMs() - origin;
  // a request that never reached its socket (refused connection, aborted while queued) was sent when it failed
  if (Number.isNaN(out.sentMs)) out.sentMs = done;
  out.doneMs = done;
  out.chunkMs = buffers.times();
  out.chunkEnds = buffers.ends();
  out.text = text.join();
  return out;
}

interface StreamHooks {
  /** The request's bytes are being written to its socket now (`nowMs`). */
  sent(t: number): void;
  /** A 200 response's body bytes, with their arrival time (`nowMs`). */
  data(t: number, chunk: Buffer): void;
}

/**
 * POSTs through the dispatcher's raw handler interface rather than `request()`: the sent time is taken when undici
 * writes the request to its socket (not when it was queued behind other lanes' work on the event loop), and each
 * body chunk is timed as the HTTP parser hands it over, with no stream machinery between. Resolves with the status
 * (and, for a status other than 200, the body's text) once the response ends.
 */
function dispatchStream(
  url: string,
  payload: string,
  options: { dispatcher: Dispatcher; signal?: AbortSignal },
  hooks: StreamHooks,
): Promise<{ code: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const { signal } = options;
    if (signal?.aborted) return reject(new Error("aborted before it was sent"));
    let controller: Dispatcher.DispatchController | null = null;
    let code = 0;
    const errorBody: Buffer[] = [];
    const onAbort = () => controller?.abort(new Error("aborted"));
    const settle = () => signal?.removeEventListener("abort", onAbort);
    signal?.addEventListener("abort", onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (signal?.aborted) return c.abort(new Error("aborted before it was sent"));
        hooks.sent(nowMs());
      },
      onResponseStart(_c, statusCode) {
        code = statusCode;
      },
      onResponseData(_c, chunk) {
        const t = nowMs();
        if (code === 200) hooks.data(t, chunk);
        else errorBody.push(chunk);
      },
      onResponseEnd() {
        settle();
        resolve({ code, body: Buffer.concat(errorBody).toString("utf8") });
      },
      onResponseError(_c, err) {
        settle();
        reject(err);
      },
    };
    options.dispatcher.dispatch(
      {
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: payload,
      },
      handler,
    );
  });
}
