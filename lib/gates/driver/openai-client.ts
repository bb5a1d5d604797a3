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

/** POSTs a chat completion and returns its JSON body; throws on a transport error, a non-2xx status or bad JSON. */
export async function postChat(endpoint: EngineEndpoint, body: object, options: RequestOptions = {}): Promise<unknown> {
  const doFetch = options.fetch ?? fetch;
  const res = await doFetch(url(endpoint, "/v1/chat/completions"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, model: endpoint.model }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 600_000),
  });
  const text = await res.text();
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
  const doFetch = options.fetch ?? fetch;
  const res = await doFetch(url(endpoint, "/v1/chat/completions"), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ ...body, model: endpoint.model, stream: true }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 600_000),
  });
  if (!res.ok || !res.body) throw new Error(`engine answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const decoder = new TextDecoder();
  let buffer = "";
  let reply = "";
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") return reply;
      const event = JSON.parse(data) as { choices?: { delta?: { content?: string | null } }[]; error?: unknown };
      if (event.error) throw new Error(`engine streamed an error: ${JSON.stringify(event.error).slice(0, 300)}`);
      reply += event.choices?.[0]?.delta?.content ?? "";
    }
  }
  throw new Error("the stream ended without [DONE]");
}
