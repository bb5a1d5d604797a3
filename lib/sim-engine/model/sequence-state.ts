import { hashTokens } from "./rng";

const TRI_SALT = 103;
const BI_SALT = 102;

/**
 * A sequence's tokens with the lookup indexes the toy model's copy head and the n-gram proposer read:
 * for each 3- and 2-token window, the position of the token that most recently followed it.
 * Pushes can be undone (truncate), so speculative tokens can be tried and rolled back.
 */
export class SequenceState {
  readonly tokens: number[] = [];
  private readonly tri = new Map<number, number>();
  private readonly bi = new Map<number, number>();
  private readonly prevTri: number[] = [];
  private readonly prevBi: number[] = [];

  constructor(initial: readonly number[] = []) {
    for (const t of initial) this.push(t);
  }

  get length(): number {
    return this.tokens.length;
  }

  push(token: number): void {
    const j = this.tokens.length;
    this.tokens.push(token);
    this.prevTri.push(j >= 3 ? this.swap(this.tri, hashTokens(this.tokens, j - 3, j, TRI_SALT), j) : -2);
    this.prevBi.push(j >= 2 ? this.swap(this.bi, hashTokens(this.tokens, j - 2, j, BI_SALT), j) : -2);
  }

  truncate(length: number): void {
    while (this.tokens.length > length) {
      const j = this.tokens.length - 1;
      const pt = this.prevTri.pop()!;
      const pb = this.prevBi.pop()!;
      if (pt !== -2) this.restore(this.tri, hashTokens(this.tokens, j - 3, j, TRI_SALT), pt);
      if (pb !== -2) this.restore(this.bi, hashTokens(this.tokens, j - 2, j, BI_SALT), pb);
      this.tokens.pop();
    }
  }

  /** The token that followed the last earlier occurrence of the current 3-token suffix, or -1. */
  copyCandidate(): number {
    const j = this.match(3);
    return j < 0 ? -1 : this.tokens[j]!;
  }

  /**
   * Prompt lookup: the tokens that followed the latest earlier occurrence of the current n-token suffix
   * (n = 3, then 2), at most k of them.
   */
  lookup(k: number): number[] {
    for (const n of [3, 2] as const) {
      const j = this.match(n);
      if (j >= 0) return this.tokens.slice(j, Math.min(j + k, this.tokens.length));
    }
    return [];
  }

  private match(n: 2 | 3): number {
    const len = this.tokens.length;
    if (len < n + 1) return -1;
    const map = n === 3 ? this.tri : this.bi;
    const j = map.get(hashTokens(this.tokens, len - n, len, n === 3 ? TRI_SALT : BI_SALT));
    if (j === undefined) return -1;
    for (let i = 1; i <= n; i++) if (this.tokens[j - i] !== this.tokens[len - i]) return -1;
    return j;
  }

  private swap(map: Map<number, number>, key: number, value: number): number {
    const prev = map.get(key);
    map.set(key, value);
    return prev ?? -1;
  }

  private restore(map: Map<number, number>, key: number, prev: number): void {
    if (prev === -1) map.delete(key);
    else map.set(key, prev);
  }
}
