import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "@": fileURLToPath(new URL("./", import.meta.url)) };
const ignored = ["node_modules/**", ".next/**", ".arena/**", "e2e/**"];

export default defineConfig({
  resolve: { alias },
  test: {
    environment: "node",
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["**/*.test.ts", "**/*.test.tsx"],
          exclude: [...ignored, "**/*.e2e.test.ts"],
        },
      },
      {
        // Whole evaluations on the simulated engine: their speeds are paced by its cost model, so they run one file
        // at a time, after everything else, with the machine to themselves. (Two local backends with different
        // state folders would also hand their pods the same engine user, which the agent's kill between engines
        // must never share.) The red-team matrix comes last: its ten pods run at once.
        extends: true,
        test: {
          name: "evaluations",
          include: ["**/*.e2e.test.ts"],
          exclude: [...ignored, "lib/red-team/**"],
          fileParallelism: false,
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
