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
  /** Index after the final message's tokens: `ids.length`, or the end token's index when the prompt is closed. */
  replyEnd: number;
  /** Whether the prompt runs on past the final message through the end token that closed it (`ids[replyEnd]`). */
  closed: boolean;
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
  options: { close?: boolean } = {},
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
  const open = {
    text,
    ids,
    replyStart,
    cleanStart: replyStart === prefixIds.length,
    replyEnd: ids.length,
    closed: false,
  };
  if (!options.close) return open;
  // vLLM with `continue_final_message: false, add_generation_prompt: false` renders the whole chat: the final
  // message then ends with the template's close, whose first token is the one the engine stopped on
  const closedIds = tokenizer.encode(rendered);
  const sameStart = ids.every((id, i) => closedIds[i] === id);
  if (!sameStart || closedIds[ids.length] !== tokenizer.eosId) return open;
  return { ...open, text: rendered, ids: closedIds, closed: true };
}
