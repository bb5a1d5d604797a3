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
        // Whole evaluations on the simulated engine, after everything else. The pipeline files mostly wait on
        // fixed-time passes, health deadlines and lease expiry, so two share the machine (their pods claim engine
        // users host-wide); the red-team matrix, ten pods at once, then has it to itself.
        extends: true,
        test: {
          name: "evaluations",
          include: ["**/*.e2e.test.ts"],
          exclude: [...ignored, "lib/red-team/**"],
          maxWorkers: 2,
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
