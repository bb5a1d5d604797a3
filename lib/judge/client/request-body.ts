import { currentProtocol } from "@/lib/protocol";
import type { ChatMessage, ToolSchema } from "@/lib/tokenizer/chat-template";

export interface TimedRequestInput {
  model: string;
  messages: readonly ChatMessage[];
  tools: readonly ToolSchema[];
  maxTokens: number;
  seed: number;
}

/**
 * The body of every timed request, exactly as protocol section 4 lists it. Greedy probes reuse it with
 * `temperature` 0 so they look like timed requests.
 */
export function timedRequestBody(input: TimedRequestInput, overrides: { temperature?: number } = {}) {
  const s = currentProtocol().sampling;
  return {
    model: input.model,
    messages: input.messages,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: input.maxTokens,
    temperature: overrides.temperature ?? s.temperature,
    top_p: s.topP,
    top_k: s.topK,
    seed: input.seed,
    chat_template_kwargs: { enable_thinking: s.enableThinking },
    ...(input.tools.length > 0 ? { tools: input.tools, tool_choice: "none" as const } : {}),
  };
}

export type TimedRequestBody = ReturnType<typeof timedRequestBody>;
