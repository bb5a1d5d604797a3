import type { BoardEntry } from "./board-entry";
import { resultView } from "./result-view";

/** A board entry for tests: a scored evaluation whose record has the given score and ratios. */
export function testEntry(
  over: Partial<BoardEntry> & { score?: number | null; ratios?: [number, number, number] },
): BoardEntry {
  const { score = 1, ratios = [1, 1, 1], ...rest } = over;
  const [solo, team, busy] = ratios;
  return {
    evaluationId: rest.evaluationId ?? `e-${Math.random().toString(36).slice(2)}`,
    submissionId: "s",
    taskId: "qwen3-8b",
    split: "test",
    profile: "full",
    account: "alice",
    accountKind: "participant",
    method: "m",
    kind: "eagle3",
    speculator: null,
    engine: { source: "inline", uri: null, revision: null },
    referenceKey: null,
    status: "scored",
    queuedAt: "2026-10-24T00:00:00.000Z",
    finishedAt: "2026-10-24T01:00:00.000Z",
    result: resultView({
      ratios: {
        solo: { passes: [solo], ratio: solo },
        team: { passes: [team], ratio: team },
        busy: { passes: [busy], ratio: busy },
      },
      score,
      reason: score === 0 ? "a gate failed" : null,
    }),
    devGap: null,
    ...rest,
  };
}
