import { Template } from "@huggingface/jinja";

/** An OpenAI-style chat message as the chat template reads it. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  tool_call_id?: string;
  name?: string;
}

export interface ToolSchema {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface RenderOptions {
  tools?: readonly ToolSchema[];
  addGenerationPrompt: boolean;
  enableThinking?: boolean;
}

/** Renders conversations with the tokenizer config's own Jinja template, as vLLM's `apply_chat_template` does. */
export class ChatTemplate {
  private readonly template: Template;

  constructor(source: string) {
    this.template = new Template(source);
  }

  render(messages: readonly ChatMessage[], options: RenderOptions): string {
    return this.template.render({
      messages,
      tools: options.tools && options.tools.length > 0 ? options.tools : undefined,
      add_generation_prompt: options.addGenerationPrompt,
      enable_thinking: options.enableThinking ?? false,
      bos_token: "",
      eos_token: "<|im_end|>",
    });
  }
}
