import { describe, expect, it } from "vitest";
import { redTeamEnv } from "./env";
import { formatChance, formatMatrix } from "./format-matrix";
import type { RunVerdict } from "./matrix";
import { CI_MATRIX_MODES } from "./modes";
import { defaultSeeds, type MatrixOptions, runMatrix } from "./run-matrix";

/**
 * The red-team matrix's CI-sized rows end to end (`CI_MATRIX_MODES`; `print-matrix.ts` runs them all): each
 * simulated engine mode as a whole evaluation pod against the stock engine, on the shortest (`ci`) profile, five
 * pods at a time (ten at once left a pod's check requests unanswered
 * on a two-core machine): the attacks' effects stand many standard errors outside their bounds even on its 64
 * sampled replies.
 * `print-matrix.ts` runs the larger `redteam` profile over several seeds and reports how often an honest row fails by
 * chance.
 */
describe("red-team matrix", () => {
  it(
    "passes the A/A and honest rows on every gate and fails each attack by the gate section 9 names",
    async () => {
      // SIM_SPEED 2 gives each pod hundreds of timed replies, several times what the checks sample, at a third of the
      // tokens (and CPU) of a faster simulated GPU
      const options: MatrixOptions = { profile: "ci", concurrency: 5, simSpeed: 2, env: redTeamEnv(process.env) };
      const [first, second] = defaultSeeds(2) as [string, string];
      const result = await runMatrix({ ...options, seeds: [first], modes: CI_MATRIX_MODES });
      console.log(`${formatMatrix(result)}\n\n${formatChance(result)}`);
      expect(result.verdicts.map((v) => v.mode)).toEqual([...CI_MATRIX_MODES]);

      // Each gate is a 95% test, so an honest row fails one now and then by chance (print-matrix measures how
      // often). A row that fails on the first seed plays a second: failing twice is no longer chance.
      const chance = result.verdicts.filter((v) => v.kind !== "attack" && !v.asExpected);
      const replayed = new Map<string, RunVerdict>();
      if (chance.length > 0) {
        const again = await runMatrix({ ...options, seeds: [second], modes: chance.map((v) => v.mode) });
        console.log(`replayed on seed ${second}:\n${formatMatrix(again)}`);
        for (const v of again.verdicts) replayed.set(v.mode, v);
      }

      for (const v of result.verdicts) {
        if (v.kind === "attack") {
          // caught: a measurement scored 0, with the failed gate's reason (protocol section 5)
          expect.soft(v.outcome, `${v.mode}: ${v.reason}`).toBe("scored");
          expect.soft(v.specscore, `${v.mode}: ${v.reason}`).toBe(0);
          expect
            .soft(
              v.failedGates.filter((k) => v.expectedGates.includes(k)),
              `${v.mode} must fail ${v.expectedGates.join(" or ")}; it failed [${v.failedGates.join(", ")}]`,
            )
            .not.toEqual([]);
        } else {
          const last = replayed.get(v.mode) ?? v;
          const history = replayed.has(v.mode) ? ` (seed ${first} failed [${v.failedGates.join(", ")}] too)` : "";
          expect.soft(last.outcome, `${v.mode}: ${last.reason}${history}`).toBe("scored");
          expect.soft(last.failedGates, `${v.mode} failed gates${history}`).toEqual([]);
        }
      }
    },
    40 * 60_000,
  );
});
