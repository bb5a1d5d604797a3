import type { GateKey } from "../gates";

export type RowKind = "aa" | "honest" | "attack";

/** One row of the matrix: a simulated engine mode and what the protocol expects of it. */
export interface MatrixMode {
  mode: string;
  kind: RowKind;
  /** For an attack: the gates protocol section 9 names as its defense; it is caught when one of them fails. */
  caughtBy: readonly GateKey[];
  /** For an attack: the section 9 row it stands for. */
  attack?: string;
}

/**
 * The default matrix. The defenses follow protocol section 9: loose acceptance → sampled likelihood and
 * first-choice share; greedy or other sampling → first-choice share and likelihood; a quantized target → target
 * fidelity; replies cut short → length; more device memory than allowed → device memory.
 */
export const MATRIX_MODES: readonly MatrixMode[] = [
  { mode: "stock", kind: "aa", caughtBy: [] },
  { mode: "ngram", kind: "honest", caughtBy: [] },
  { mode: "draft", kind: "honest", caughtBy: [] },
  { mode: "eagle", kind: "honest", caughtBy: [] },
  {
    mode: "loose-accept",
    kind: "attack",
    caughtBy: ["likelihood", "argmax"],
    attack: "accept drafts loosely",
  },
  { mode: "greedy", kind: "attack", caughtBy: ["argmax"], attack: "sample greedily" },
  {
    mode: "other-sampling",
    kind: "attack",
    caughtBy: ["argmax", "likelihood"],
    attack: "sample with other parameters than requested",
  },
  { mode: "quantized", kind: "attack", caughtBy: ["fidelity"], attack: "serve a quantized target" },
  { mode: "cut-replies", kind: "attack", caughtBy: ["length"], attack: "cut replies short" },
  { mode: "memory-hog", kind: "attack", caughtBy: ["memory"], attack: "hold more device memory than allowed" },
];

/**
 * The CI-sized matrix: the A/A row and one attack per defense the pipeline tests do not reach otherwise (the
 * likelihood and first-choice share, fidelity, length, device memory), one pod each, all at once. The honest rows
 * are whole evaluations in the pipeline tests; greedy and other-sampling are caught by the same two checks as loose
 * acceptance. `print-matrix.ts` runs every row.
 */
export const CI_MATRIX_MODES = ["stock", "loose-accept", "quantized", "cut-replies", "memory-hog"] as const;

/** The matrix rows for the named modes, in the order given; an unknown name is an error naming it. */
export function matrixModes(names?: readonly string[]): MatrixMode[] {
  if (!names) return [...MATRIX_MODES];
  return names.map((name) => {
    const found = MATRIX_MODES.find((m) => m.mode === name);
    if (!found) throw new Error(`unknown matrix mode "${name}" (known: ${MATRIX_MODES.map((m) => m.mode).join(", ")})`);
    return found;
  });
}
