import { currentProtocol } from "@/lib/protocol";

/** How many of a check's requests an engine was sent and left unanswered. */
export interface AnswerCount {
  requests: number;
  unanswered: number;
}

/** More than the protocol's share (10%) of a check's requests unanswered fails the gate (voids it for the stock engine). */
export function tooManyUnanswered(count: AnswerCount, share = currentProtocol().gates.unansweredShare): boolean {
  if (count.unanswered < 0 || count.unanswered > count.requests) {
    throw new Error(`unanswered ${count.unanswered} of ${count.requests} requests is not a count`);
  }
  return count.requests > 0 && count.unanswered > share * count.requests;
}
