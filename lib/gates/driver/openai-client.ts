/** Where an OpenAI-compatible engine listens, and the name it serves the target under. */
export interface EngineEndpoint {
  baseUrl: string;
  model: string;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface RequestOptions {
  fetch?: FetchLike;
  timeoutMs?: number;
  /** Hears how many of a check's requests have settled, after each one (the live page's check progress). */
  onProgress?: (settled: number, total: number) => void;
}

const url = (endpoint: EngineEndpoint, path: string) => `${endpoint.baseUrl.replace(/\/+$/, "")}${path}`;

/**
 * fetch's own error says only "fetch failed"; what failed (a refused or reset connection, undici's headers or body
 * timeout, the request's own deadline) is its cause, which the unanswered check's log line must carry to be read.
 */
export function transportError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const causes: string[] = [];
  for (let c: unknown = error.cause; c instanceof Error && causes.length < 3; c = c.cause) {
    const code = (c as { code?: unknown }).code;
    causes.push(typeof code === "string" && !c.message.includes(code) ? `${c.message} (${code})` : c.message);
  }
  if (error.name === "TimeoutError") causes.push("the request's deadline passed");
  return new Error(causes.length > 0 ? `${error.message}: ${causes.join(": ")}` : error.message, { cause: error });
}

/** What the engine itself said inside a stream, as opposed to a failure of the transport. */
class EngineStreamError extends Error {}

async function send(doFetch: FetchLike, target: string, init: RequestInit): Promise<Response> {
  try {
    return await doFetch(target, init);
  } catch (error) {
    throw transportError(error);
  }
}

/**
 * A connection that closed before any answer came: what a kept-alive socket shows when the server closed it as idle
 * while the request was being written (Node's and uvicorn's 5 s idle close against a client whose own timer ran late
 * on a crowded core). No answer was given, so asking again on a fresh connection changes nothing the engine said.
 */
function closedBeforeAnswer(error: unknown): boolean {
  for (let c: unknown = error; c instanceof Error; c = c.cause) {
    const code = (c as { code?: unknown }).code;
    if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET") return true;
  }
  return false;
}

/** Times a scoring request is sent again after a connection closed before any answer. */
const RESENDS = 2;

/**
 * POSTs a chat completion and returns its JSON body; throws on a transport error, a non-2xx status or bad JSON. The
 * checks' requests are idempotent (temperature 0, max_tokens 1, or seeded), so one whose connection closed before
 * any answer is sent again, up to `RESENDS` times; a refusal, a timeout or any answer is final.
 */
export async function postChat(endpoint: EngineEndpoint, body: object, options: RequestOptions = {}): Promise<unknown> {
  const doFetch = options.fetch ?? fetch;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 600_000);
  const init = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, model: endpoint.model }),
    signal,
  };
  let res: Response | undefined;
  for (let attempt = 0; !res; attempt++) {
    try {
      res = await send(doFetch, url(endpoint, "/v1/chat/completions"), init);
    } catch (error) {
      // send's error keeps fetch's as its cause, where the socket's code is read
      if (attempt >= RESENDS || signal.aborted || !closedBeforeAnswer(error)) throw error;
    }
  }
  const text = await res.text().catch((error: unknown) => {
    throw transportError(error);
  });
  if (!res.ok) throw new Error(`engine answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * Streams a chat completion and returns the reply's text; throws unless the stream ends with `[DONE]`
 * (a reply counts only then, as in the timed passes).
 */
export async function streamChat(
  endpoint: EngineEndpoint,
  body: object,
  options: RequestOptions = {},
): Promise<string> {
  return (await streamChatReply(endpoint, body, options)).text;
}

/** `streamChat`'s reply with the stream's last `finish_reason` ("stop", "length"; null when none was sent). */
export async function streamChatReply(
  endpoint: EngineEndpoint,
  body: object,
  options: RequestOptions = {},
): Promise<{ text: string; finishReason: string | null }> {
  const doFetch = options.fetch ?? fetch;
  const res = await send(doFetch, url(endpoint, "/v1/chat/completions"), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ ...body, model: endpoint.model, stream: true }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 600_000),
  });
  if (!res.ok || !res.body) throw new Error(`engine answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const decoder = new TextDecoder();
  let buffer = "";
  let reply = "";
  let finishReason: string | null = null;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf("\n");
        if (!line.startsWith("data:")) continue;
        const data = line.slice(5).trim();
        if (data === "[DONE]") return { text: reply, finishReason };
        const event = JSON.parse(data) as {
          choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[];
          error?: unknown;
        };
        if (event.error)
          throw new EngineStreamError(`engine streamed an error: ${JSON.stringify(event.error).slice(0, 300)}`);
        reply += event.choices?.[0]?.delta?.content ?? "";
        finishReason = event.choices?.[0]?.finish_reason ?? finishReason;
      }
    }
  } catch (error) {
    // the engine's own words pass as they are; a transport failure mid-stream names its cause
    throw error instanceof EngineStreamError ? error : transportError(error);
  }
  throw new Error("the stream ended without [DONE]");
}
