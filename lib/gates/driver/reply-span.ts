import type { ChatMessage, ChatTemplate, ToolSchema } from "@/lib/tokenizer/chat-template";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";

/** A scored prompt as the engine tokenizes it, and where the final message's tokens lie in it. */
export interface ScoredPrompt {
  text: string;
  ids: number[];
  /** Index of the first token of the final message (a token straddling its start counts as its). */
  replyStart: number;
  /** The text before the final message tokenizes alone into exactly the tokens before `replyStart` (no straddle). */
  cleanStart: boolean;
}

/**
 * Renders messages as vLLM does with `continue_final_message: true, add_generation_prompt: false` (Hugging Face's
 * `apply_chat_template`: render, then cut after the final message's content, found by its last occurrence with
 * whitespace stripped), tokenizes it, and locates the final message's tokens.
 */
export function renderForScoring(
  messages: readonly ChatMessage[],
  tools: readonly ToolSchema[] | undefined,
  template: ChatTemplate,
  tokenizer: TargetTokenizer,
): ScoredPrompt {
  const final = messages[messages.length - 1];
  if (!final) throw new Error("nothing to render");
  const rendered = template.render(messages, { tools, addGenerationPrompt: false, enableThinking: false });
  const stripped = final.content.trim();
  const at = rendered.lastIndexOf(stripped);
  if (stripped === "" || at < 0) {
    throw new Error(
      `the final message does not appear in the rendered chat (empty, or cut by the template): ${JSON.stringify(final.content)}`,
    );
  }
  const lstripped = final.content.trimStart();
  const end =
    rendered.slice(at, at + lstripped.length) === final.content ? at + lstripped.length : at + stripped.length;
  const text = rendered.slice(0, end);
  const ids = tokenizer.encode(text);
  const prefixIds = tokenizer.encode(text.slice(0, at));
  let replyStart = 0;
  while (replyStart < prefixIds.length && replyStart < ids.length && prefixIds[replyStart] === ids[replyStart]) {
    replyStart++;
  }
  if (replyStart === 0) throw new Error("the rendered prompt has no tokens before its final message");
  return { text, ids, replyStart, cleanStart: replyStart === prefixIds.length };
}
