import type { Dispatcher } from "undici";
import { nowNs } from "../clock";
import { SseParser } from "./sse-parser";

export interface StreamUsage {
  promptTokens: number | null;
  completionTokens: number | null;
  cachedTokens: number | null;
}

/** What one streamed chat completion did, timed on the judge's clock (nanoseconds, absolute). */
export interface StreamOutcome {
  sentNs: bigint;
  status: number | null;
  /** Arrival of the transport chunk that carried the first non-empty content. */
  firstTokenNs: bigint | null;
  /** Arrival of the transport chunk that carried the last non-empty content (never the usage chunk). */
  lastTokenNs: bigint | null;
  doneNs: bigint;
  /** One entry per content-bearing SSE event: its transport chunk's arrival time. */
  chunkNs: bigint[];
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

function describeError(err: unknown): string {
  if (typeof err === "string") return err;
  if (err && typeof err === "object" && "message" in err) return String((err as { message: unknown }).message);
  return JSON.stringify(err);
}

/**
 * Posts a streamed chat completion and records every chunk's arrival time before parsing it. Never throws: HTTP,
 * transport and in-stream errors land in `error`.
 */
export async function streamChat(
  url: string,
  body: unknown,
  options: {
    dispatcher: Dispatcher;
    signal?: AbortSignal;
    /** Each piece of content as its event is parsed (the reply's token count starts before the reply ends). */
    onContent?: (text: string) => void;
  },
): Promise<StreamOutcome> {
  const parser = new SseParser();
  const out: StreamOutcome = {
    sentNs: 0n,
    status: null,
    firstTokenNs: null,
    lastTokenNs: null,
    doneNs: 0n,
    chunkNs: [],
    chunkEnds: [],
    text: "",
    finishReason: null,
    sawDone: false,
    usage: { promptTokens: null, completionTokens: null, cachedTokens: null },
    error: null,
  };
  const parts: string[] = [];
  let length = 0;
  const payload = JSON.stringify(body);

  const handle = (arrived: bigint, events: ReturnType<SseParser["push"]>) => {
    for (const ev of events) {
      if (out.sawDone) continue;
      if (ev.data === "[DONE]") {
        out.sawDone = true;
        continue;
      }
      if (ev.event === "error") {
        out.error ??= `stream error event: ${ev.data.slice(0, 300)}`;
        continue;
      }
      let json: ChunkJson;
      try {
        json = JSON.parse(ev.data) as ChunkJson;
      } catch {
        out.error ??= `unparseable stream data: ${ev.data.slice(0, 200)}`;
        continue;
      }
      if (json.error !== undefined) {
        out.error ??= `stream error: ${describeError(json.error)}`;
        continue;
      }
      const choice = json.choices?.[0];
      const content = choice?.delta?.content;
      if (typeof content === "string" && content.length > 0) {
        parts.push(content);
        options.onContent?.(content);
        length += content.length;
        out.chunkNs.push(arrived);
        out.chunkEnds.push(length);
        out.firstTokenNs ??= arrived;
        out.lastTokenNs = arrived;
      }
      if (choice?.finish_reason) out.finishReason = choice.finish_reason;
      if (json.usage) {
        out.usage = {
          promptTokens: json.usage.prompt_tokens ?? null,
          completionTokens: json.usage.completion_tokens ?? null,
          cachedTokens: json.usage.prompt_tokens_details?.cached_tokens ?? null,
        };
      }
    }
  };

  try {
    const status = await dispatchStream(url, payload, options, {
      sent: (t) => {
        out.sentNs = t;
      },
      data: (t, chunk) => handle(t, parser.push(chunk)),
    });
    out.status = status.code;
    if (status.code !== 200) out.error = `http ${status.code}: ${status.body.slice(0, 300)}`;
    else {
      handle(nowNs(), parser.end());
      if (!out.sawDone && out.error === null) out.error = "stream ended without [DONE]";
    }
  } catch (err) {
    out.error ??= `transport: ${describeError(err)}`;
  }
  // a request that never reached its socket (refused connection, aborted while queued) was sent when it failed
  if (out.sentNs === 0n) out.sentNs = nowNs();
  out.doneNs = nowNs();
  out.text = parts.join("");
  return out;
}

interface StreamHooks {
  /** The request's bytes are being written to its socket now. */
  sent(t: bigint): void;
  /** A 200 response's body bytes, with their arrival time. */
  data(t: bigint, chunk: Buffer): void;
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
        hooks.sent(nowNs());
      },
      onResponseStart(_c, statusCode) {
        code = statusCode;
      },
      onResponseData(_c, chunk) {
        const t = nowNs();
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
