/**
 * The words the live page uses for the agent's phase ids and check names (lib/pods/agent/run-pod.ts emits them);
 * an id it does not know is shown as it is.
 */
const PHASES: Record<string, string> = {
  "candidate-timed": "Timed passes: the candidate",
  "device-idle": "Clearing the device for the stock engine",
  "stock-timed": "Timed passes: the stock engine",
  "checks-candidate": "Lossless checks: the candidate answers",
  "checks-stock": "Lossless checks: the stock engine answers and scores",
  gates: "Computing the gates and SpecScore",
};

const STATUSES: Record<string, string> = {
  queued: "waiting for a GPU",
  fetching: "fetching and sealing the speculator and the engine",
  running: "timed passes",
  checking: "lossless checks",
  scored: "scored",
  failed: "failed",
  void: "void",
  cancelled: "cancelled",
};

const CHECKS: Record<string, string> = {
  greedy: "Greedy probes",
  fidelity: "Fixed texts' log-probabilities",
  "sampled-candidate": "Scoring the candidate's sampled replies",
  "sampled-stock": "Scoring the stock engine's sampled replies",
};

export function phaseName(phase: string | null): string | null {
  if (phase === null) return null;
  return PHASES[phase] ?? phase;
}

export function statusMeaning(status: string): string | null {
  return STATUSES[status] ?? null;
}

/** "Greedy probes, on the candidate" */
export function checkName(check: string, engine: string): string {
  const on = engine === "stock" ? "the stock engine" : engine === "candidate" ? "the candidate" : engine;
  return `${CHECKS[check] ?? check}, on ${on}`;
}
