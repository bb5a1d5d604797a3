import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the server does for one request: the first chunk after `ttftMs`, each next one `gapMs` after the previous. */
export interface ScriptedReply {
  ttftMs: number;
  chunks: { text: string; gapMs: number }[];
  finishReason?: string;
  usage?: { promptTokens: number; cachedTokens: number; completionTokens?: number };
  /** How it fails, if it does. */
  fail?: "http-500" | "truncate" | "error-event" | "error-data";
  /** Write each SSE event in pieces split at awkward places (mid-line, mid-character, between \r and \n). */
  splitWrites?: boolean;
  /** Interleave SSE comments and use CRLF line ends. */
  noisy?: boolean;
  /** Zero-cost serving: every chunk, the usage and [DONE] in one write, at once (for the client's ceiling). */
  burst?: boolean;
}

export interface ReceivedRequest {
  index: number;
  body: Record<string, unknown>;
  receivedNs: bigint;
  /** When each content chunk was written, on the same monotonic clock as the judge's. */
  writesNs: bigint[];
  /** When the response ended (after [DONE], or the failure). */
  endNs: bigint | null;
  reply: ScriptedReply;
}

export type Script = (req: { body: Record<string, unknown>; index: number }) => ScriptedReply;

export interface ScriptedServer {
  url: string;
  requests: ReceivedRequest[];
  setMetrics(text: string): void;
  close(): Promise<void>;
}

const chunkJson = (model: string, content: string | null, finish: string | null) =>
  JSON.stringify({
    id: "chatcmpl-scripted",
    object: "chat.completion.chunk",
    model,
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
  });

/**
 * A minimal OpenAI-style streaming server whose timings and texts a test programs: real sockets on 127.0.0.1, port 0.
 * Chunk writes are scheduled against absolute monotonic deadlines from the request's arrival, so timer slop does
 * not accumulate over a reply.
 */
export async function startScriptedServer(script: Script, options: { port?: number } = {}): Promise<ScriptedServer> {
  const requests: ReceivedRequest[] = [];
  let metrics = "";
  const server = createServer((req, res) => {
    const receivedNs = process.hrtime.bigint();
    if (req.method === "GET" && req.url === "/health") return void res.end("ok");
    if (req.method === "GET" && req.url === "/metrics") {
      res.setHeader("content-type", "text/plain; version=0.0.4");
      return void res.end(metrics);
    }
    if (req.method === "GET" && req.url === "/log") {
      res.setHeader("content-type", "application/json");
      return void res.end(
        JSON.stringify(
          requests.map((r) => ({
            ...r,
            body: undefined,
            seed: r.body.seed,
            receivedNs: String(r.receivedNs),
            endNs: r.endNs === null ? null : String(r.endNs),
            writesNs: r.writesNs.map(String),
          })),
        ),
      );
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.statusCode = 404;
      return void res.end("not found");
    }
    // the reply's work waits until the loop has timestamped every request that arrived with this one: a burst's
    // later requests get their true arrival time, not the time the earlier ones' replies were set up
    readBody(req).then((raw) => setImmediate(() => handle(raw, receivedNs, res)));
  });

  function handle(raw: string, receivedNs: bigint, res: ServerResponse) {
    const body = JSON.parse(raw) as Record<string, unknown>;
    const index = requests.length;
    const reply = script({ body, index });
    const rec: ReceivedRequest = { index, body, receivedNs, writesNs: [], endNs: null, reply };
    res.on("finish", () => {
      rec.endNs = process.hrtime.bigint();
    });
    requests.push(rec);
    if (reply.fail === "http-500") {
      res.statusCode = 500;
      return void res.end(JSON.stringify({ error: { message: "scripted failure" } }));
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    const model = String(body.model ?? "");
    const eol = reply.noisy ? "\r\n" : "\n";
    const send = (data: string, event?: string) => {
      let text = `${event ? `event: ${event}${eol}` : ""}data: ${data}${eol}${eol}`;
      if (reply.noisy) text = `: keep-alive${eol}${text}`;
      if (reply.splitWrites) {
        const buf = Buffer.from(text);
        for (let i = 0; i < buf.length; i += 3) res.write(buf.subarray(i, i + 3));
      } else res.write(text);
    };
    if (reply.burst) {
      const parts = reply.chunks.map((c) => `data: ${chunkJson(model, c.text, null)}\n\n`);
      parts.push(`data: ${chunkJson(model, null, reply.finishReason ?? "stop")}\n\n`, "data: [DONE]\n\n");
      rec.writesNs.push(process.hrtime.bigint());
      return void res.end(parts.join(""));
    }
    let due = Number(receivedNs) / 1e6 + reply.ttftMs;
    let i = 0;
    const step = () => {
      if (res.destroyed) return;
      const chunk = reply.chunks[i]!;
      rec.writesNs.push(process.hrtime.bigint());
      send(chunkJson(model, chunk.text, null));
      i++;
      if (reply.fail === "truncate" && i >= Math.ceil(reply.chunks.length / 2)) return void res.end();
      if (i < reply.chunks.length) {
        due += reply.chunks[i]!.gapMs;
        schedule();
        return;
      }
      if (reply.fail === "error-event") {
        send(JSON.stringify({ message: "scripted stream error" }), "error");
        return void res.end();
      }
      if (reply.fail === "error-data") {
        send(JSON.stringify({ error: { message: "scripted error", code: 500 } }));
        send("[DONE]");
        return void res.end();
      }
      send(chunkJson(model, null, reply.finishReason ?? "stop"));
      const u = reply.usage;
      send(
        JSON.stringify({
          id: "chatcmpl-scripted",
          object: "chat.completion.chunk",
          model,
          choices: [],
          usage: {
            prompt_tokens: u?.promptTokens ?? 0,
            completion_tokens: u?.completionTokens ?? reply.chunks.length,
            total_tokens: (u?.promptTokens ?? 0) + reply.chunks.length,
            prompt_tokens_details: { cached_tokens: u?.cachedTokens ?? 0 },
          },
        }),
      );
      send("[DONE]");
      res.end();
    };
    const schedule = () => setTimeout(step, Math.max(0, due - Number(process.hrtime.bigint()) / 1e6));
    if (reply.chunks.length === 0) {
      send(chunkJson(model, null, reply.finishReason ?? "stop"));
      send("[DONE]");
      return void res.end();
    }
    schedule();
  }

  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setMetrics: (text) => {
      metrics = text;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/** Words that are one token each for Qwen3 (a leading space and a common English word). */
export const ONE_TOKEN_WORDS = [
  " the",
  " of",
  " and",
  " to",
  " in",
  " is",
  " that",
  " for",
  " it",
  " with",
  " as",
  " was",
  " on",
  " be",
  " at",
  " by",
];

/** `n` one-token chunks, deterministic from a seed. */
export function wordChunks(n: number, seed: number, gapMs: number): { text: string; gapMs: number }[] {
  const out: { text: string; gapMs: number }[] = [];
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push({ text: ONE_TOKEN_WORDS[(x >>> 16) % ONE_TOKEN_WORDS.length]!, gapMs });
  }
  return out;
}

/**
 * A deterministic engine: the reply depends only on the request's seed and its last message, so the same requests
 * replay the same replies, and a changed system prompt changes nothing else.
 */
export function deterministicScript(options: {
  ttftMs: number;
  gapMs: number;
  minTokens?: number;
  maxTokens?: number;
}): Script {
  const lo = options.minTokens ?? 5;
  const hi = options.maxTokens ?? 12;
  return ({ body }) => {
    const messages = body.messages as { content: string }[];
    const last = messages[messages.length - 1]?.content ?? "";
    let h = Number(body.seed) >>> 0;
    for (let i = 0; i < last.length; i++) h = Math.imul(h ^ last.charCodeAt(i), 16777619) >>> 0 || 1;
    const n = lo + (h % (hi - lo + 1));
    return {
      ttftMs: options.ttftMs,
      chunks: wordChunks(n, h, options.gapMs),
      usage: { promptTokens: 100, cachedTokens: 40 },
    };
  };
}
