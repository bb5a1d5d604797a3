import { FULL_PROFILE } from "@/lib/protocol";
import type { BoardEntry } from "./board-entry";
import { latestPer, referenceKeyOf } from "./ranking";

/**
 * The run the references board shows for each reference: its last scored under the full protocol; for a reference
 * the arena has measured only under a test profile (the embedded default measures them under `smoke`, since a full
 * run is an hour each), its last scored under a test profile, which the board shows with its profile's label. A
 * reference is never ranked among the participants, so the label is all a reader needs to weigh it.
 */
export function referencesShown(references: readonly BoardEntry[]): BoardEntry[] {
  const full = latestPer(
    references.filter((e) => e.profile === FULL_PROFILE),
    referenceKeyOf,
  );
  const measured = new Set(full.map(referenceKeyOf));
  const tested = latestPer(
    references.filter((e) => e.profile !== FULL_PROFILE && !measured.has(referenceKeyOf(e))),
    referenceKeyOf,
  );
  return [...full, ...tested];
}
