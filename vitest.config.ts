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
        // Whole evaluations on the simulated engine, after everything else, one file at a time: a pod sharing the
        // machine with another runs its candidate and stock phases under different loads, which skews the speed
        // ratio and how far each engine plays into its sessions (and so the gates' samples). The red-team matrix
        // comes last, five pods at a time.
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
