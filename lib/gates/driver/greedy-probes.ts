import { currentProtocol } from "@/lib/protocol";
import type { ChatMessage, ToolSchema } from "@/lib/tokenizer/chat-template";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { type CheckRun, runCheck } from "./check-run";
import { type EngineEndpoint, type RequestOptions, streamChat } from "./openai-client";

/** A probe prompt, built like a timed request; `body`, when given, is sent exactly (the endpoint names the model). */
export interface ProbePrompt {
  messages: readonly ChatMessage[];
  tools?: readonly ToolSchema[];
  seed?: number;
  maxTokens?: number;
  body?: object;
}

export interface GreedyOptions extends RequestOptions {
  tokenizer: TargetTokenizer;
  /** The reply budget: 256 on the full protocol, the profile's `greedyMaxTokens` otherwise. */
  maxTokens?: number;
}

/**
 * Sends the probes one at a time at temperature 0, streamed like a timed request (only the temperature differs),
 * and returns each reply in the target's token ids, counted from the returned text. A probe's own `body` (the
 * judge's `greedyProbes(...).body`) is sent as it is.
 */
export function sendGreedyProbes(
  endpoint: EngineEndpoint,
  probes: readonly ProbePrompt[],
  options: GreedyOptions,
): Promise<CheckRun<number[]>> {
  const { greedy } = currentProtocol().gates;
  const { sampling } = currentProtocol();
  const maxTokens = options.maxTokens ?? greedy.maxTokens;
  return runCheck(
    probes,
    1,
    async (probe) => {
      const text = await streamChat(
        endpoint,
        probe.body ?? {
          messages: probe.messages,
          ...(probe.tools && probe.tools.length > 0 ? { tools: probe.tools, tool_choice: "none" } : {}),
          max_tokens: probe.maxTokens ?? maxTokens,
          temperature: greedy.temperature,
          top_p: sampling.topP,
          top_k: sampling.topK,
          ...(probe.seed === undefined ? {} : { seed: probe.seed }),
          stream_options: { include_usage: true },
          chat_template_kwargs: { enable_thinking: false },
        },
        options,
      );
      return options.tokenizer.encode(text);
    },
    options.onProgress,
  );
}
