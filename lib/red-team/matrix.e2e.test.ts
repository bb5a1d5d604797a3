import { describe, expect, it } from "vitest";
import { redTeamEnv } from "./env";
import { formatChance, formatMatrix } from "./format-matrix";
import { MATRIX_MODES } from "./modes";
import { defaultSeeds, runMatrix } from "./run-matrix";

/**
 * The red-team matrix end to end: each simulated engine mode as a whole evaluation pod against the stock
 * engine, on the shortest (`ci`) profile, five pods at a time: the attacks' effects stand many standard errors
 * outside their bounds even on its 64 sampled replies. `print-matrix.ts` runs the larger `redteam` profile over
 * several seeds and reports how often an honest row fails by chance.
 */
describe("red-team matrix", () => {
  it(
    "passes the A/A and honest rows on every gate and fails each attack by the gate section 9 names",
    async () => {
      const result = await runMatrix({
        profile: "ci",
        seeds: defaultSeeds(1),
        concurrency: 5,
        simSpeed: 6,
        env: redTeamEnv(process.env),
      });
      console.log(`${formatMatrix(result)}\n\n${formatChance(result)}`);

      expect(result.verdicts.map((v) => v.mode)).toEqual(MATRIX_MODES.map((m) => m.mode));
      for (const v of result.verdicts) {
        if (v.kind === "attack") {
          expect.soft(v.outcome, `${v.mode}: ${v.reason}`).toBe("failed");
          expect
            .soft(
              v.failedGates.filter((k) => v.expectedGates.includes(k)),
              `${v.mode} must fail ${v.expectedGates.join(" or ")}; it failed [${v.failedGates.join(", ")}]`,
            )
            .not.toEqual([]);
        } else {
          expect.soft(v.outcome, `${v.mode}: ${v.reason}`).toBe("scored");
          expect.soft(v.failedGates, `${v.mode} failed gates`).toEqual([]);
        }
      }
    },
    40 * 60_000,
  );
});
