import { ChatTemplate } from "@/lib/tokenizer/chat-template";
import { loadTargetTokenizer, type TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { createTokenCounter, type TokenCounter } from "./token-counter";

/** What an evaluation counts and renders with: the target's tokenizer, its chat template, and a counter on it. */
export interface TargetTokens {
  tokenizer: TargetTokenizer;
  template: ChatTemplate;
  counter: TokenCounter;
}

/**
 * Loads the tokenizer, the chat template and a token counter from the target's directory (`TOKENIZER`). Throws an
 * error naming the directory and the file it lacks; the counter is the caller's to close.
 */
export async function openTargetTokens(dir: string): Promise<TargetTokens> {
  const tokenizer = loadTargetTokenizer(dir);
  const template = new ChatTemplate(tokenizer);
  const counter = await createTokenCounter(dir);
  if (counter.fingerprint !== tokenizer.fingerprint) {
    await counter.close();
    throw new Error(`the tokenizer directory ${dir} changed while it was read`);
  }
  return { tokenizer, template, counter };
}
