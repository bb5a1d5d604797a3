import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatMessage, ChatTemplate, ToolSchema } from "@/lib/tokenizer/chat-template";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";

/**
 * A minimal vLLM-shaped server for the check driver's tests: `/v1/chat/completions`, streamed greedy replies and
 * `prompt_logprobs` with `continue_final_message`, from a toy deterministic model. It knows nothing of the
 * driver's code: it renders and cuts the prompt itself, as vLLM does.
 */
export interface ToyServerOptions {
  tokenizer: TargetTokenizer;
  template: ChatTemplate;
  /** Noise added to every log-probability (a quantized target): each moves by up to ± this. */
  perturbation?: number;
  /** Greedy replies take another token after this many (a changed forward pass). */
  greedyDriftAfter?: number;
  /** Every n-th request is answered with HTTP 500. */
  failEvery?: number;
}

export interface ToyServer {
  baseUrl: string;
  requests(): number;
  close(): Promise<void>;
}

const hash = (...xs: number[]) => {
  let h = 2166136261;
  for (const x of xs) {
    h = Math.imul(h ^ (x & 0xffff), 16777619);
    h = Math.imul(h ^ (x >>> 16), 16777619);
  }
  h ^= h >>> 13;
  return (Math.imul(h, 0x5bd1e995) ^ (h >>> 15)) >>> 0;
};

export interface ToyModel {
  argmax(prev: number): number;
  stops(prev: number): boolean;
  score(prev: number, token: number): { logprob: number; rank: number };
}

/**
 * The toy target over a tokenizer's vocabulary: each token's favourite successor (an ordinary token from id 1000 on),
 * and how likely it finds any other.
 */
export function toyModelOf(tokenizer: Pick<TargetTokenizer, "vocabSize" | "specialIds">): ToyModel {
  const span = Math.min(60000, tokenizer.vocabSize - 1000);
  if (span < 1000)
    throw new Error(`the toy server needs a vocabulary of 2,000 tokens at least (${tokenizer.vocabSize})`);
  /** The first ordinary token from `id` on, wrapping within [1000, 1000 + span). */
  const ordinary = (id: number) => {
    let x = id;
    while (tokenizer.specialIds.has(x)) x = 1000 + ((x - 1000 + 1) % span);
    return x;
  };
  const model: ToyModel = {
    argmax: (prev) => ordinary(1000 + (hash(prev, 0x9e37) % span)),
    stops: (prev) => hash(prev, 7) % 25 === 0,
    score(prev, token) {
      if (token === model.argmax(prev)) return { logprob: -0.02, rank: 1 };
      const h = hash(prev, token);
      return { logprob: -(1 + (h % 400) / 100), rank: 2 + (h % 30) };
    },
  };
  return model;
}

function renderPrompt(options: ToyServerOptions, body: Record<string, unknown>): string {
  const messages = body.messages as ChatMessage[];
  const tools = body.tools as ToolSchema[] | undefined;
  const continueFinal = body.continue_final_message === true;
  const text = options.template.render(messages, {
    tools,
    addGenerationPrompt: !continueFinal && body.add_generation_prompt !== false,
    enableThinking: false,
  });
  if (!continueFinal) return text;
  const final = messages[messages.length - 1]!.content;
  const at = text.lastIndexOf(final.trim());
  if (at < 0) throw new Error("final message not found in the rendered chat");
  const lstripped = final.trimStart();
  return text.slice(
    0,
    text.slice(at, at + lstripped.length) === final ? at + lstripped.length : at + final.trim().length,
  );
}

function promptLogprobs(options: ToyServerOptions, toyModel: ToyModel, ids: number[]) {
  const out: (Record<string, { logprob: number; rank: number; decoded_token: string }> | null)[] = [null];
  for (let i = 1; i < ids.length; i++) {
    const prev = ids[i - 1]!;
    const token = ids[i]!;
    const { logprob, rank } = toyModel.score(prev, token);
    const noise = options.perturbation ? (((hash(prev, token, 5) % 2001) - 1000) / 1000) * options.perturbation : 0;
    const entry: Record<string, { logprob: number; rank: number; decoded_token: string }> = {
      [token]: { logprob: Math.min(0, logprob + noise), rank, decoded_token: options.tokenizer.decodeToken(token) },
    };
    const top = toyModel.argmax(prev);
    if (top !== token) entry[top] = { logprob: -0.02, rank: 1, decoded_token: options.tokenizer.decodeToken(top) };
    out.push(entry);
  }
  return out;
}

function greedyReply(options: ToyServerOptions, toyModel: ToyModel, ids: number[], maxTokens: number): number[] {
  const out: number[] = [];
  let prev = ids[ids.length - 1]!;
  while (out.length < maxTokens && !toyModel.stops(prev)) {
    let next = toyModel.argmax(prev);
    if (options.greedyDriftAfter !== undefined && out.length >= options.greedyDriftAfter) {
      next = 1000 + (next % 777);
      while (options.tokenizer.specialIds.has(next)) next++;
    }
    out.push(next);
    prev = next;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

export async function startToyServer(options: ToyServerOptions): Promise<ToyServer> {
  const toyModel = toyModelOf(options.tokenizer);
  let count = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      res.writeHead(404).end();
      return;
    }
    count++;
    const body = await readBody(req);
    if (options.failEvery && count % options.failEvery === 0) {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "boom" } }));
      return;
    }
    const ids = options.tokenizer.encode(renderPrompt(options, body));
    const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : 16;
    const reply = greedyReply(options, toyModel, ids, maxTokens);
    if (body.stream === true) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const id of reply) {
        res.write(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: options.tokenizer.decodeToken(id) } }] })}\n\n`,
        );
      }
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
      res.end("data: [DONE]\n\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${count}`,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: options.tokenizer.decode(reply.slice(0, 1)) } }],
        usage: { prompt_tokens: ids.length, completion_tokens: 1 },
        prompt_logprobs: typeof body.prompt_logprobs === "number" ? promptLogprobs(options, toyModel, ids) : null,
      }),
    );
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
