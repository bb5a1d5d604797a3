/** Small deterministic hashing and a seeded generator: the toy model and the sampler must replay exactly. */

export function mix32(h: number): number {
  let x = h | 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** A 52-bit key for a short token window (collisions negligible at the corpus' size). */
export function hashTokens(tokens: ArrayLike<number>, start: number, end: number, salt: number): number {
  let a = mix32(salt ^ 0x9e3779b9);
  let b = mix32(salt + 0x85ebca6b);
  for (let i = start; i < end; i++) {
    const t = tokens[i]!;
    a = mix32(a ^ t);
    b = mix32(b + Math.imul(t, 0x27d4eb2d) + i - start);
  }
  return a * 0x100000 + (b & 0xfffff);
}

/** A uniform in [-1, 1) from two integers, for hash-seeded logit perturbations. */
export function hashUnit(a: number, b: number): number {
  return mix32(mix32(a) ^ Math.imul(b, 0x9e3779b1)) / 0x80000000 - 1;
}

/** sfc32: a seeded stream of uniforms in [0, 1) with 53 bits. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = mix32(seed ^ 0xdeadbeef);
    this.b = mix32(Math.floor(seed / 0x100000000) ^ 0x41c64e6d);
    this.c = mix32(this.a ^ 0x6c078965);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next32();
  }

  next32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return ((this.next32() >>> 5) * 67108864 + (this.next32() >>> 6)) / 9007199254740992;
  }
}
