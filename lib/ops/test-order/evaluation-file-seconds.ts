/**
 * Each whole-evaluation test file's wall time in a fresh clone's `npm test` (2026-12-07, two cores with PCID, three
 * files at once beside the unit tests and Playwright). Only their order matters: longest first.
 */
export const EVALUATION_FILE_SECONDS: Readonly<Record<string, number>> = {
  "lib/ops/image-tree/image-tree.e2e.test.ts": 236,
  "lib/pods/sandbox/sandbox.e2e.test.ts": 229,
  "lib/kit/kit.e2e.test.ts": 214,
  "lib/pods/kubernetes/kubernetes.e2e.test.ts": 178,
  "lib/client/clients.e2e.test.ts": 162,
  "lib/evaluations/participant-path.e2e.test.ts": 150,
  "lib/evaluations/worker-death.e2e.test.ts": 122,
  "lib/evaluations/pipeline.e2e.test.ts": 113,
  "lib/evaluations/postgres-outage.e2e.test.ts": 102,
  "lib/gates/bench/gate-power.e2e.test.ts": 80,
  "lib/calibration/calibration.e2e.test.ts": 79,
  "lib/pods/agent/bundle/agent-bundle.e2e.test.ts": 79,
  "lib/pods/agent/stock-without-speed.e2e.test.ts": 53,
  "lib/evaluations/reconcile-after-redis-loss.e2e.test.ts": 45,
  "lib/calibration/think-search-cli.e2e.test.ts": 30,
};
