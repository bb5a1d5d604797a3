import { currentProtocol } from "@/lib/protocol";

/** Protocol section 4's window: a prompt is its tokens plus 5% and 128; a prompt that cannot fit its reply is cut. */
export interface WindowRule {
  maxModelLen: number;
  overheadShare: number;
  overheadTokens: number;
  cutTo: number;
}

export function windowRule(maxModelLen: number): WindowRule {
  const w = currentProtocol().window;
  return { maxModelLen, overheadShare: w.overheadShare, overheadTokens: w.overheadTokens, cutTo: w.cutTo };
}

/** The counted prompt: raw tokens (messages' contents and the tools' JSON) plus the template's allowance. */
export function promptEstimate(rawTokens: number, rule: WindowRule): number {
  return Math.ceil(rawTokens * (1 + rule.overheadShare)) + rule.overheadTokens;
}

/** True when the prompt and its reply budget would not fit the window. */
export function needsCut(rawTokens: number, maxTokens: number, rule: WindowRule): boolean {
  return promptEstimate(rawTokens, rule) + maxTokens > rule.maxModelLen;
}

/**
 * Where to cut: the first message stays, then the newest messages whose counted prompt (with the first message and
 * `fixedTokens`, the tools) fits half the window. Returns the index of the first kept message after the first; the
 * last message always stays, even alone over the half.
 */
export function cutStart(messageTokens: readonly number[], fixedTokens: number, rule: WindowRule): number {
  const n = messageTokens.length;
  if (n <= 2) return 1;
  const budget = Math.floor(rule.maxModelLen * rule.cutTo);
  let raw = fixedTokens + messageTokens[0]! + messageTokens[n - 1]!;
  let start = n - 1;
  while (start > 1 && promptEstimate(raw + messageTokens[start - 1]!, rule) <= budget) {
    start--;
    raw += messageTokens[start]!;
  }
  return start;
}
