import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
// with its extension: vitest loads its config natively, where an import names its file whole
import { EvaluationsSequencer } from "./lib/ops/test-order/evaluations-sequencer.ts";

const alias = { "@": fileURLToPath(new URL("./", import.meta.url)) };
const ignored = ["node_modules/**", ".next/**", ".arena/**", "e2e/**"];

export default defineConfig({
  resolve: { alias },
  test: {
    environment: "node",
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    sequence: { sequencer: EvaluationsSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          // each file in a worker thread of one process rather than a process of its own: 9% less CPU and time for
          // the whole project here (303 s of CPU against 332, 344 s against 378 alone), every file passing alike
          pool: "threads",
          include: ["**/*.test.ts", "**/*.test.tsx"],
          exclude: [...ignored, "**/*.e2e.test.ts"],
        },
      },
      {
        // Whole evaluations on the simulated engine, after everything else, a few files at a time (`npm test` passes
        // --maxWorkers): a pod spends most of its time waiting on its fixed-time passes, health timeouts and faults,
        // and its gates are built to hold under load (the red-team matrix plays five pods at once on two cores).
        // The red-team matrix comes last.
        extends: true,
        test: {
          name: "evaluations",
          include: ["**/*.e2e.test.ts"],
          exclude: [...ignored, "lib/red-team/**"],
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "red-team",
          include: ["lib/red-team/**/*.e2e.test.ts"],
          exclude: ignored,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
