import type { WorkloadId } from "@/lib/protocol";
import type { PassSummary } from "./speeds/summary";

/** The judge's progress, for others to store and stream. */
export type JudgeEvent =
  | {
      type: "pass-started";
      workload: WorkloadId;
      pass: number | "warmup";
      lanes: number;
      interleave: number;
      passSeconds: number;
      salt: string;
      at: string;
    }
  | {
      type: "pass-progress";
      workload: WorkloadId;
      pass: number | "warmup";
      /** Seconds since the pass started, against its fixed time. */
      elapsedSeconds: number;
      passSeconds: number;
      requestsDone: number;
      requestsInFlight: number;
      /** Counted output tokens so far over elapsed seconds. */
      tokensPerSecond: number;
    }
  | { type: "pass-ended"; workload: WorkloadId; pass: number | "warmup"; summary: PassSummary; at: string };

export type OnEvent = (event: JudgeEvent) => void;
