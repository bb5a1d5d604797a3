import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { ChatTemplate } from "@/lib/tokenizer/chat-template";
import type { SegmentEncoder } from "@/lib/tokenizer/segment-encoder";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import type { TemplateMarks } from "@/lib/tokenizer/template-marks";
import type { LanguageModel } from "../model/language-model";
import type { SamplingParams } from "../model/sampling";
import type { EngineCore, FinishReason } from "../scheduler/engine-core";
import { ApiError } from "./api-error";
import { type ChatRequest, parseChatRequest } from "./chat-request";
import { IncrementalDetokenizer } from "./detokenizer";
import { promptLogprobs, renderPrompt } from "./prompt";

export interface ChatDeps {
  servedName: string;
  maxModelLen: number;
  tokenizer: TargetTokenizer;
  template: ChatTemplate;
  marks: TemplateMarks;
  target: LanguageModel;
  core: EngineCore;
  overrideSampling: ((s: SamplingParams) => SamplingParams) | null;
  cutShare: number | null;
  /** Decides, per request, whether the failing attack breaks it: "none", "error" (HTTP 500) or "broken-stream". */
  failure: () => "none" | "error" | "broken-stream";
  onServed: () => void;
  prompts: PromptCache;
  encoder: SegmentEncoder;
}

/** Rendered-and-encoded prompts of recent requests (rendering and BPE cost a few ms; clients repeat prompts). */
export class PromptCache {
  private readonly entries = new Map<string, number[]>();
  constructor(private readonly capacity = 256) {}

  get(req: ChatRequest, build: () => number[]): number[] {
    const key = JSON.stringify([
      req.messages,
      req.tools,
      req.addGenerationPrompt,
      req.continueFinalMessage,
      req.enableThinking,
    ]);
    let ids = this.entries.get(key);
    if (ids) this.entries.delete(key);
    else ids = build();
    this.entries.set(key, ids);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return ids;
  }
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export async function handleChat(deps: ChatDeps, body: unknown, res: ServerResponse): Promise<void> {
  const req = parseChatRequest(body);
  if (req.model !== null && req.model !== deps.servedName) {
    throw new ApiError(404, `The model \`${req.model}\` does not exist.`);
  }
  const promptIds = deps.prompts.get(req, () => deps.encoder.encode(renderPrompt(deps.template, req, deps.marks)));
  const n = promptIds.length;
  if (n >= deps.maxModelLen) {
    throw new ApiError(
      400,
      `This model's maximum context length is ${deps.maxModelLen} tokens. However, your request has ${n} input tokens. Please reduce the length of the input messages.`,
    );
  }
  const maxTokens = req.maxTokens ?? deps.maxModelLen - n;
  if (n + maxTokens > deps.maxModelLen) {
    throw new ApiError(
      400,
      `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${deps.maxModelLen} tokens and your request has ${n} input tokens (${maxTokens} > ${deps.maxModelLen} - ${n}).`,
    );
  }
  const failure = deps.failure();
  if (failure === "error") throw new ApiError(500, "simulated engine failure (the failing attack)");
  const prompt_logprobs =
    req.promptLogprobs === null ? null : promptLogprobs(deps.target, deps.tokenizer, promptIds, req.promptLogprobs);

  const id = `chatcmpl-${randomBytes(16).toString("hex")}`;
  const created = Math.floor(Date.now() / 1000);
  const model = deps.servedName;
  const detok = new IncrementalDetokenizer(deps.tokenizer);
  const sampling = deps.overrideSampling ? deps.overrideSampling(req.sampling) : req.sampling;
  const seed = req.seed ?? randomBytes(4).readUInt32LE(0);
  const stopAfter = deps.cutShare === null ? undefined : Math.max(1, Math.floor(maxTokens * deps.cutShare));
  let completion = 0;
  let text = "";
  let cachedOf: () => number = () => 0;

  const done = new Promise<FinishReason>((resolve) => {
    const handle = deps.core.submit({
      promptTokens: promptIds,
      maxTokens,
      sampling,
      seed,
      stopAfter,
      onTokens(tokens, finish) {
        completion += tokens.length;
        let delta = detok.push(tokens);
        if (finish) delta += detok.flush();
        text += delta;
        if (req.stream) {
          if (delta || finish) {
            writeChunk(res, {
              id,
              object: "chat.completion.chunk",
              created,
              model,
              choices: [
                { index: 0, delta: { content: delta }, logprobs: null, finish_reason: finish, stop_reason: null },
              ],
            });
          }
          if (failure === "broken-stream" && completion >= 8 && !finish) res.destroy();
        }
        if (finish) resolve(finish);
      },
    });
    cachedOf = () => handle.cachedTokens;
    res.on("close", () => {
      if (!res.writableEnded) handle.abort();
    });
  });

  if (req.stream) {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
    writeChunk(res, {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }],
    });
  }
  const finish = await done;
  res.once("finish", deps.onServed);
  const usage: Usage = {
    prompt_tokens: n,
    completion_tokens: completion,
    total_tokens: n + completion,
    prompt_tokens_details: { cached_tokens: cachedOf() },
  };
  if (req.stream) {
    if (req.includeUsage) writeChunk(res, { id, object: "chat.completion.chunk", created, model, choices: [], usage });
    res.end("data: [DONE]\n\n");
    return;
  }
  if (failure === "broken-stream") {
    res.destroy();
    return;
  }
  const payload = JSON.stringify({
    id,
    object: "chat.completion",
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: text, refusal: null, tool_calls: [], reasoning_content: null },
        logprobs: null,
        finish_reason: finish,
        stop_reason: null,
      },
    ],
    usage,
    prompt_logprobs,
    kv_transfer_params: null,
  });
  res.writeHead(200, { "content-type": "application/json" });
  res.end(payload);
}

function writeChunk(res: ServerResponse, chunk: unknown): void {
  if (!res.destroyed) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
}
