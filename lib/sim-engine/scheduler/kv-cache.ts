import { mix32 } from "../model/rng";

/** A request's view of the paged cache: its blocks in order and the hashes of its full blocks. */
export interface BlockTable {
  blocks: number[];
  hashes: number[];
}

export function newBlockTable(): BlockTable {
  return { blocks: [], hashes: [] };
}

/** Chained hash of one full block: the parent's hash and the block's tokens, as vLLM hashes prefix blocks. */
export function blockHash(parent: number, tokens: readonly number[], start: number, size: number): number {
  let a = mix32(parent ^ 0x51ed27);
  let b = mix32(Math.floor(parent / 0x100000000) + 0x2545f491);
  for (let i = start; i < start + size; i++) {
    a = mix32(a ^ tokens[i]!);
    b = mix32(b + Math.imul(tokens[i]!, 0x9e3779b1));
  }
  return a * 0x100000 + (b & 0xfffff);
}

/**
 * A paged KV cache with a prefix cache: full blocks are registered by hash; a block no request holds stays cached
 * and evictable, least recently freed first (LRU), until a new allocation needs it.
 */
export class KvCache {
  private readonly refs: Int32Array;
  private readonly hashOf: Float64Array;
  private readonly byHash = new Map<number, number>();
  private readonly freeClean: number[] = [];
  /** Cached blocks nobody holds, in LRU order (Map keeps insertion order). */
  private readonly evictable = new Map<number, true>();
  queries = 0;
  hits = 0;

  constructor(
    readonly totalBlocks: number,
    readonly blockSize: number,
    readonly prefixCaching: boolean,
  ) {
    this.refs = new Int32Array(totalBlocks);
    this.hashOf = new Float64Array(totalBlocks).fill(-1);
    for (let b = totalBlocks - 1; b >= 0; b--) this.freeClean.push(b);
  }

  get freeBlocks(): number {
    return this.freeClean.length + this.evictable.size;
  }

  get usage(): number {
    return (this.totalBlocks - this.freeBlocks) / this.totalBlocks;
  }

  /** Full-block hashes of a token sequence, from `table.hashes` onward. */
  private extendHashes(table: BlockTable, tokens: readonly number[]): void {
    const full = Math.floor(tokens.length / this.blockSize);
    for (let i = table.hashes.length; i < full; i++) {
      const parent = i === 0 ? 0 : table.hashes[i - 1]!;
      table.hashes.push(blockHash(parent, tokens, i * this.blockSize, this.blockSize));
    }
  }

  /**
   * Takes the cached prefix of `tokens` (never its last token, which must be computed) and allocates blocks for
   * the rest. Returns the number of tokens found cached, or -1 (and holds nothing) when the blocks do not fit.
   */
  admit(table: BlockTable, tokens: readonly number[], countQuery: boolean): number {
    this.extendHashes(table, tokens);
    const hit: number[] = [];
    if (this.prefixCaching) {
      const maxHit = Math.floor((tokens.length - 1) / this.blockSize);
      for (let i = 0; i < maxHit; i++) {
        const b = this.byHash.get(table.hashes[i]!);
        if (b === undefined) break;
        hit.push(b);
      }
    }
    const need = Math.ceil(tokens.length / this.blockSize) - hit.length;
    let evictableHits = 0;
    for (const b of hit) if (this.refs[b] === 0) evictableHits++;
    if (need > this.freeBlocks - evictableHits) return -1;
    for (const b of hit) this.hold(b);
    table.blocks = [...hit];
    for (let i = 0; i < need; i++) table.blocks.push(this.take());
    this.register(table, tokens.length);
    const cached = hit.length * this.blockSize;
    if (countQuery && this.prefixCaching) {
      this.queries += tokens.length;
      this.hits += cached;
    }
    return cached;
  }

  /** Makes room for `length` tokens in the table; false when the cache is out of blocks. */
  ensure(table: BlockTable, length: number): boolean {
    const need = Math.ceil(length / this.blockSize) - table.blocks.length;
    if (need <= 0) return true;
    if (need > this.freeBlocks) return false;
    for (let i = 0; i < need; i++) table.blocks.push(this.take());
    return true;
  }

  /** Registers the table's newly completed blocks for prefix reuse. */
  commit(table: BlockTable, tokens: readonly number[]): void {
    this.extendHashes(table, tokens);
    this.register(table, tokens.length);
  }

  /** Releases a request's blocks; the tail is freed first so it is evicted first, as vLLM does. */
  release(table: BlockTable): void {
    for (let i = table.blocks.length - 1; i >= 0; i--) {
      const b = table.blocks[i]!;
      this.refs[b] = this.refs[b]! - 1;
      if (this.refs[b] === 0) {
        if (this.hashOf[b] !== -1) this.evictable.set(b, true);
        else this.freeClean.push(b);
      }
    }
    table.blocks = [];
  }

  private register(table: BlockTable, length: number): void {
    if (!this.prefixCaching) return;
    const full = Math.min(Math.floor(length / this.blockSize), table.blocks.length);
    for (let i = 0; i < full; i++) {
      const b = table.blocks[i]!;
      if (this.hashOf[b] !== -1) continue;
      const h = table.hashes[i]!;
      if (this.byHash.has(h)) continue;
      this.hashOf[b] = h;
      this.byHash.set(h, b);
    }
  }

  private hold(b: number): void {
    if (this.refs[b] === 0) this.evictable.delete(b);
    this.refs[b] = this.refs[b]! + 1;
  }

  private take(): number {
    let b = this.freeClean.pop();
    if (b === undefined) {
      const first = this.evictable.keys().next();
      if (first.done) throw new Error("kv cache: no free block");
      b = first.value;
      this.evictable.delete(b);
      this.byHash.delete(this.hashOf[b]!);
      this.hashOf[b] = -1;
    }
    this.refs[b] = 1;
    return b;
  }
}
