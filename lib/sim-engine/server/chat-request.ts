import { z } from "zod";
import type { SamplingParams } from "../model/sampling";
import { ApiError } from "./api-error";

const textPart = z.object({ type: z.literal("text"), text: z.string() });
const content = z.union([z.string(), z.array(textPart)]).nullish();

const message = z
  .object({
    role: z.enum(["system", "user", "assistant", "tool", "developer"]),
    content,
    name: z.string().optional(),
    tool_call_id: z.string().optional(),
    tool_calls: z.array(z.unknown()).optional(),
    reasoning_content: z.string().nullish(),
  })
  .loose();

const tool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

const int = z.number().int();

export const chatRequestSchema = z
  .object({
    model: z.string().nullish(),
    messages: z.array(message).min(1, "messages must hold at least one message"),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().nullish() }).loose().nullish(),
    temperature: z.number().nullish(),
    top_p: z.number().nullish(),
    top_k: int.nullish(),
    seed: int.nullish(),
    max_tokens: int.nullish(),
    max_completion_tokens: int.nullish(),
    n: int.nullish(),
    tools: z.array(tool).nullish(),
    tool_choice: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
    chat_template_kwargs: z.object({ enable_thinking: z.boolean().optional() }).loose().nullish(),
    prompt_logprobs: int.nullish(),
    logprobs: z.boolean().nullish(),
    top_logprobs: int.nullish(),
    continue_final_message: z.boolean().nullish(),
    add_generation_prompt: z.boolean().nullish(),
    ignore_eos: z.boolean().nullish(),
  })
  .loose();

export type ChatRequestBody = z.infer<typeof chatRequestSchema>;

export interface ChatMessageIn {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  [key: string]: unknown;
}

/** A chat request checked as vLLM checks it, with the model card's defaults (Qwen3's generation_config). */
export interface ChatRequest {
  model: string | null;
  messages: ChatMessageIn[];
  tools: z.infer<typeof tool>[];
  stream: boolean;
  includeUsage: boolean;
  sampling: SamplingParams;
  seed: number | null;
  maxTokens: number | null;
  promptLogprobs: number | null;
  continueFinalMessage: boolean;
  addGenerationPrompt: boolean;
  enableThinking: boolean;
}

/** Qwen3-8B's generation_config.json, which vLLM applies to fields a request leaves out. */
export const MODEL_DEFAULTS = { temperature: 0.6, top_p: 0.95, top_k: 20 };

export function parseChatRequest(raw: unknown): ChatRequest {
  const parsed = chatRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ApiError(400, `Invalid request: ${issue.path.join(".") || "body"}: ${issue.message}`);
  }
  const b = parsed.data;
  const temperature = b.temperature ?? MODEL_DEFAULTS.temperature;
  const topP = b.top_p ?? MODEL_DEFAULTS.top_p;
  const topK = b.top_k ?? MODEL_DEFAULTS.top_k;
  if (temperature < 0) throw new ApiError(400, `temperature must be non-negative, got ${temperature}.`);
  if (!(topP > 0 && topP <= 1)) throw new ApiError(400, `top_p must be in (0, 1], got ${topP}.`);
  if (topK < -1) throw new ApiError(400, `top_k must be -1 (disable), or at least 1, got ${topK}.`);
  if (b.n != null && b.n !== 1) throw new ApiError(400, "n must be 1 on this engine.");
  const maxTokens = b.max_completion_tokens ?? b.max_tokens ?? null;
  if (maxTokens !== null && maxTokens < 1) throw new ApiError(400, `max_tokens must be at least 1, got ${maxTokens}.`);
  const continueFinal = b.continue_final_message ?? false;
  const addGen = b.add_generation_prompt ?? true;
  if (continueFinal && addGen) {
    throw new ApiError(400, "Cannot set both `continue_final_message` and `add_generation_prompt` to True.");
  }
  const stream = b.stream ?? false;
  if (b.stream_options && !stream) throw new ApiError(400, "Stream options can only be defined when `stream=True`.");
  if (b.prompt_logprobs != null) {
    if (stream) throw new ApiError(400, "`prompt_logprobs` are not available when `stream=True`.");
    if (b.prompt_logprobs < -1)
      throw new ApiError(400, `prompt_logprobs must be a non-negative value: ${b.prompt_logprobs}`);
  }
  if (b.logprobs || b.top_logprobs != null) {
    throw new ApiError(400, "logprobs of generated tokens are not supported by the simulated engine.");
  }
  if (b.ignore_eos) throw new ApiError(400, "ignore_eos is not supported by the simulated engine.");
  const messages: ChatMessageIn[] = b.messages.map((m) => ({
    ...m,
    role: m.role === "developer" ? "system" : m.role,
    content: typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text).join(""),
  }));
  if (continueFinal && messages[messages.length - 1]!.role !== "assistant") {
    throw new ApiError(400, "continue_final_message is set, but the last message is not from the assistant.");
  }
  const tools = b.tools ?? [];
  const toolChoice = b.tool_choice ?? (tools.length > 0 ? "auto" : "none");
  if (toolChoice !== "none" && tools.length > 0) {
    throw new ApiError(
      400,
      `"${typeof toolChoice === "string" ? toolChoice : "named"}" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`,
    );
  }
  return {
    model: b.model ?? null,
    messages,
    tools,
    stream,
    includeUsage: stream && (b.stream_options?.include_usage ?? false),
    sampling: { temperature, topP, topK: Math.max(0, topK) },
    seed: b.seed ?? null,
    maxTokens,
    promptLogprobs: b.prompt_logprobs == null ? null : b.prompt_logprobs === -1 ? 20 : b.prompt_logprobs,
    continueFinalMessage: continueFinal,
    addGenerationPrompt: addGen,
    enableThinking: b.chat_template_kwargs?.enable_thinking ?? false,
  };
}
