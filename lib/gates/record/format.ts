/** The evaluation page's way of writing a measured value next to its limit. */

/** Up to three significant digits, without trailing zeros: 0 → "0", 0.087 → "0.087", 2e-7 → "2e-7". */
export function shortNumber(x: number): string {
  if (x === 0) return "0";
  return String(Number(x.toPrecision(3)));
}

/** "+0.0081 ± 0.0149": a gap and its 95% half-width, signed. */
export function gapWithHalfWidth(gap: number, se: number, z: number): string {
  const sign = gap > 0 ? "+" : gap < 0 ? "-" : "";
  return `${sign}${Math.abs(gap).toFixed(4)} ± ${(z * se).toFixed(4)}`;
}

export function gib(mib: number): string {
  return `${(mib / 1024).toFixed(1)} GiB`;
}

/** "1.000 [0.915, 1.084]" */
export function ratioWithInterval(ratio: number, low: number, high: number): string {
  return `${ratio.toFixed(3)} [${low.toFixed(3)}, ${high.toFixed(3)}]`;
}

export function percent(share: number): string {
  return `${shortNumber(share * 100)}%`;
}
