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

/** What a template is built from: the tokenizer's chat template and its named special tokens. */
export interface TemplateSource {
  chatTemplate: string;
  templateTokens: Readonly<Record<string, string>>;
}

/**
 * Renders conversations with the target's own Jinja template, as vLLM's `apply_chat_template` does: the template
 * sees the tokenizer config's named special tokens (`bos_token`, `eos_token`, …) and none that the config leaves
 * unset.
 */
export class ChatTemplate {
  private readonly template: Template;
  private readonly tokens: Readonly<Record<string, string>>;

  constructor(source: TemplateSource) {
    this.template = new Template(source.chatTemplate);
    this.tokens = source.templateTokens;
  }

  render(messages: readonly ChatMessage[], options: RenderOptions): string {
    return this.template.render({
      ...this.tokens,
      messages,
      tools: options.tools && options.tools.length > 0 ? options.tools : undefined,
      add_generation_prompt: options.addGenerationPrompt,
      enable_thinking: options.enableThinking ?? false,
    });
  }
}
