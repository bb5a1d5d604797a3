import type { ChatMessage, ChatTemplate, ToolSchema } from "@/lib/tokenizer/chat-template";
import type { TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import type { TemplateMarks } from "@/lib/tokenizer/template-marks";
import type { LanguageModel } from "../model/language-model";
import { SequenceState } from "../model/sequence-state";
import type { ChatRequest } from "./chat-request";

/**
 * The prompt text as vLLM builds it: the chat template with or without the generation prompt; with
 * continue_final_message, the render is cut right after the final assistant message's content (an empty one loses
 * the close the template wrote after it, `messageClose`).
 */
export function renderPrompt(template: ChatTemplate, req: ChatRequest, marks: TemplateMarks): string {
  const text = template.render(req.messages as unknown as ChatMessage[], {
    tools: req.tools as ToolSchema[],
    addGenerationPrompt: req.addGenerationPrompt,
    enableThinking: req.enableThinking,
  });
  if (!req.continueFinalMessage) return text;
  const final = req.messages[req.messages.length - 1]!.content;
  if (final.length === 0) return text.endsWith(marks.messageClose) ? text.slice(0, -marks.messageClose.length) : text;
  const at = text.lastIndexOf(final);
  return at < 0 ? text : text.slice(0, at + final.length);
}

export interface PromptLogprob {
  logprob: number;
  rank: number;
  decoded_token: string;
}

/**
 * vLLM's prompt_logprobs: null for the first position, then for every prompt token its log-probability and rank
 * under the model given what precedes it, plus the `k` most likely tokens there.
 */
export function promptLogprobs(
  model: LanguageModel,
  tokenizer: TargetTokenizer,
  ids: readonly number[],
  k: number,
): (Record<string, PromptLogprob> | null)[] {
  const out: (Record<string, PromptLogprob> | null)[] = [null];
  const state = new SequenceState();
  if (ids.length > 0) state.push(ids[0]!);
  for (let i = 1; i < ids.length; i++) {
    const d = model.dist(state);
    const actual = ids[i]!;
    const entry: Record<string, PromptLogprob> = {
      [actual]: {
        logprob: Math.log(model.prob(d, actual)),
        rank: model.rank(d, actual),
        decoded_token: tokenizer.decodeToken(actual),
      },
    };
    if (k > 0) {
      model.top(d, k).forEach((t, r) => {
        if (t.id === actual) return;
        entry[t.id] = { logprob: Math.log(t.prob), rank: r + 1, decoded_token: tokenizer.decodeToken(t.id) };
      });
    }
    out.push(entry);
    state.push(actual);
  }
  return out;
}
