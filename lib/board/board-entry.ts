import type { Interval } from "./rank-ties";
import type { ResultView } from "./result-view";

/** One evaluation as a board row; plain data (dates as ISO strings) so it crosses to client components. */
export interface BoardEntry {
  evaluationId: string;
  submissionId: string;
  taskId: string;
  split: "dev" | "test";
  profile: string;
  account: string;
  accountKind: string;
  method: string | null;
  kind: string;
  speculator: { uri: string; revision: string | null } | null;
  engine: { source: string; uri: string | null; revision: string | null };
  referenceKey: string | null;
  status: string;
  queuedAt: string;
  finishedAt: string | null;
  result: ResultView | null;
  /** Set on a scored test result far below the same account's dev result on the task. */
  devGap: DevGap | null;
}

export interface RankedEntry extends BoardEntry {
  rank: number;
  /** Another entry shares this rank: their SpecScore intervals overlap (rank-ties.ts). */
  tied?: boolean;
  /** SpecScore's 95% interval from its passes and the A/A noise; null without a score. */
  interval?: Interval | null;
}

export interface DevGap {
  test: number;
  dev: number;
  /** (dev − test) / dev */
  drop: number;
}

export interface TaskBoard {
  taskId: string;
  participants: RankedEntry[];
  references: RankedEntry[];
  /** Evaluations under a test profile: labelled, listed, never ranked. */
  profiled: BoardEntry[];
}
