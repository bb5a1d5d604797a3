import { buildRecord, type MeasuredFigures, type ResultRecord } from "../gates";
import type { CalibrationPod } from "./pod-outcome";

const all = (requests: number) => ({ candidate: { requests, unanswered: 0 }, stock: { requests, unanswered: 0 } });
const even = (ratio: number) => ({ ratio, low: ratio - 0.02, high: ratio + 0.02, paired: true, replies: 300 });

/** The figures of an honest evaluation on qwen3-8b, which the tests bend one field at a time. */
export function figures(overrides: Partial<MeasuredFigures> = {}): MeasuredFigures {
  return {
    task: "qwen3-8b",
    passes: { solo: [1, 1, 1], team: [1, 1, 1], busy: [1, 1, 1] },
    greedyAgreement: 0.9,
    likelihood: { gap: 0, se: 0.01, candidate: -0.5, stock: -0.5 },
    argmax: { gap: 0, se: 0.004, candidate: 0.14, stock: 0.14 },
    fidelity: 0,
    lengths: { solo: even(1), team: even(1), busy: even(1), pooled: even(1) },
    memory: { peak_mib: 100_000, allowed_mib: 0.9 * 140_000 + 4096 },
    offload: [],
    answers: { greedy: all(16), likelihood: all(128), fidelity: all(16) },
    acceptance: { solo: null, team: null, busy: null },
    reproducibility: {
      profile: "smoke",
      seeds: { sessions: 1 },
      engine_archive_sha256: null,
      speculator_commit: null,
      speculator_sha256: null,
      image: "sim",
      device: "simulated B200",
    },
    ...overrides,
  };
}

/** A pod that came back with the record of these figures, judged by the real record builder. */
export function pod(key: string, f: MeasuredFigures, seed = "1"): CalibrationPod {
  const record: ResultRecord = buildRecord(f);
  return {
    key,
    label: key,
    mode: key === "stock" ? "stock" : key,
    seed,
    outcome: "scored",
    reason: null,
    record,
    wallSeconds: 60,
  };
}
