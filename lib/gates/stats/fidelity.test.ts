import { describe, expect, it } from "vitest";
import { fidelity } from "./fidelity";

describe("fidelity", () => {
  it("is exactly 0 for identical log-probabilities", () => {
    const a = [[-0.1, -2.5, -0.003], [-1]];
    expect(
      fidelity(
        a,
        a.map((x) => [...x]),
      ).fidelity,
    ).toBe(0);
  });

  it("is the token-weighted mean absolute difference", () => {
    // |Δ| = 0.1, 0.3, 0 on the first text and 0.4 on the second: 0.8 / 4
    const r = fidelity([[-1, -2, -3], [-0.5]], [[-1.1, -1.7, -3], [-0.9]]);
    expect(r.fidelity).toBeCloseTo(0.2, 15);
    expect(r).toMatchObject({ texts: 2, compared: 2, tokens: 4 });
  });

  it("skips texts either engine left unscored and refuses misaligned ones", () => {
    expect(fidelity([[-1], null], [[-2], [-1]])).toEqual({ fidelity: 1, texts: 2, compared: 1, tokens: 1 });
    expect(fidelity([null], [null]).fidelity).toBeNull();
    expect(() => fidelity([[-1, -2]], [[-1]])).toThrow(/fixed text 0/);
  });
});
