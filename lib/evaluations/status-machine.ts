import type { EvaluationStatus } from "../db/generated/enums";

export const TERMINAL_STATUSES = ["scored", "failed", "void", "cancelled"] as const satisfies EvaluationStatus[];
export const ACTIVE_STATUSES = ["queued", "fetching", "running", "checking"] as const satisfies EvaluationStatus[];

const ORDER: Record<EvaluationStatus, number> = {
  queued: 0,
  fetching: 1,
  running: 2,
  checking: 3,
  scored: 4,
  failed: 4,
  void: 4,
  cancelled: 4,
};

/** Any text: a status read as text (raw SQL) is asked about as the enum is. */
export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** States move forward only: no step back, nothing after a terminal state. */
export function canMove(from: EvaluationStatus, to: EvaluationStatus): boolean {
  if (isTerminal(from)) return false;
  return ORDER[to] > ORDER[from] || (isTerminal(to) && !isTerminal(from));
}

/** The states an evaluation may be in for a move to `to` to be legal. */
export function predecessorsOf(to: EvaluationStatus): EvaluationStatus[] {
  return (Object.keys(ORDER) as EvaluationStatus[]).filter((from) => canMove(from, to));
}
