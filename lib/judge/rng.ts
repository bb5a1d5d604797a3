/** 32-bit FNV-1a over the parts joined by a separator no part can confuse: the one hash every deterministic choice uses. */
export function hash32(...parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  const s = parts.join("\u241f");
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small seeded generator; the same seed gives the same sequence on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
}

/** A hex tag derived from the parts, used for salts. */
export function hexTag(...parts: readonly (string | number)[]): string {
  return (
    hash32("a", ...parts)
      .toString(16)
      .padStart(8, "0") +
    hash32("b", ...parts)
      .toString(16)
      .padStart(8, "0")
  );
}
