import type { App, Pool, Turn } from "./schema";

/** Turns whose `tokens` the judge counted again, and the tokenizer it counted them with. */
const recounted = new WeakMap<Turn, string>();

/** The fingerprint of the tokenizer that counted a turn's `tokens` or an app's counts; undefined when unknown. */
export function countedBy(pool: Pool, item: Turn | App): string | undefined {
  return ("role" in item ? recounted.get(item) : undefined) ?? pool.countedBy?.fingerprint;
}

/** Whether an item's count may stand for the tokenizer with this fingerprint. */
export function countTrusted(pool: Pool, item: Turn | App, fingerprint: string): boolean {
  return countedBy(pool, item) === fingerprint;
}

/** Sets a turn's count, made with the tokenizer of this fingerprint. */
export function setTurnCount(turn: Turn, tokens: number, fingerprint: string): void {
  turn.tokens = tokens;
  recounted.set(turn, fingerprint);
}
