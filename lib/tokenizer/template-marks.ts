import type { ChatTemplate } from "./chat-template";
import type { TargetTokenizer } from "./target-tokenizer";

/** A string no template writes and no tokenizer merges with its surroundings. */
const SENTINEL = "\u2063sentinel\u2063";

/** What the target's chat template writes around a message, read from the template itself. */
export interface TemplateMarks {
  /** What opens a user message, up to its content (`<|im_start|>user\n` in ChatML), any bos the template leads with left out. */
  userOpen: string;
  /** What closes a message after its content (`<|im_end|>\n` in ChatML). */
  messageClose: string;
  /** What follows a user message's content up to the reply: its close, then the generation prompt (non-thinking). */
  replyPrefix: string;
}

/** Renders a one-message conversation around a sentinel and reads what the template put on each side of it. */
export function templateMarks(
  template: ChatTemplate,
  tokenizer: Pick<TargetTokenizer, "templateTokens">,
): TemplateMarks {
  const messages = [{ role: "user" as const, content: SENTINEL }];
  const closed = template.render(messages, { addGenerationPrompt: false, enableThinking: false });
  const prompted = template.render(messages, { addGenerationPrompt: true, enableThinking: false });
  const at = closed.indexOf(SENTINEL);
  const atPrompted = prompted.indexOf(SENTINEL);
  if (at < 0 || atPrompted < 0) throw new Error("the chat template does not render a user message's content");
  let userOpen = closed.slice(0, at);
  const bos = tokenizer.templateTokens.bos_token;
  if (bos && userOpen.startsWith(bos)) userOpen = userOpen.slice(bos.length);
  return {
    userOpen,
    messageClose: closed.slice(at + SENTINEL.length),
    replyPrefix: prompted.slice(atPrompted + SENTINEL.length),
  };
}
