import type { Dispatcher } from "undici";
import { request } from "undici";
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
  options: { dispatcher: Dispatcher; signal?: AbortSignal },
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

  out.sentNs = nowNs();
  try {
    const res = await request(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: payload,
      dispatcher: options.dispatcher,
      signal: options.signal,
    });
    out.status = res.statusCode;
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => "");
      out.error = `http ${res.statusCode}: ${text.slice(0, 300)}`;
    } else {
      await new Promise<void>((resolve, reject) => {
        res.body.on("data", (chunk: Buffer) => {
          const arrived = nowNs();
          handle(arrived, parser.push(chunk));
        });
        res.body.on("end", () => {
          handle(nowNs(), parser.end());
          resolve();
        });
        res.body.on("error", reject);
      });
      if (!out.sawDone && out.error === null) out.error = "stream ended without [DONE]";
    }
  } catch (err) {
    out.error ??= `transport: ${describeError(err)}`;
  }
  out.doneNs = nowNs();
  out.text = parts.join("");
  return out;
}
