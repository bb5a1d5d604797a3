import { execFile } from "node:child_process";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { calibrationFile, readCalibrationReport } from "@/lib/calibration/report-file";
import { POWER_CHECKS } from "../stats/gate-power";
import { gatePowerEvidence } from "./gate-power-evidence";
import { readGatePowerFile } from "./gate-power-file";

const CLI = new URL("./gate-power.ts", import.meta.url).pathname;
const TSX = new URL("../../../node_modules/.bin/tsx", import.meta.url).pathname;
const run = (args: string[]) => promisify(execFile)(TSX, [CLI, ...args], { timeout: 120_000 });
// tiny pools under the ci profile: a few seconds of CPU a process, every step over real sockets
const TINY = ["--profile", "ci", "--pool", "12", "--text-pool", "4", "--max-tokens", "48", "--resamples", "40"];

describe("the gates' power benchmark", () => {
  it(
    "measures one strength per family in two processes side by side, writes their files, and merges them into a report",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "gate-power-"));
      try {
        const report = join(dir, "qwen3-8b.json");
        await copyFile(calibrationFile("1", "qwen3-8b"), report);
        const sampling = join(dir, "sampling.json");
        const forward = join(dir, "forward.json");
        const [printed] = await Promise.all([
          run([...TINY, "--families", "temperature,top-k", "--temperature", "0.5", "--top-k", "5", "--out", sampling]),
          run([...TINY, "--families", "honest,quantization", "--quantization", "1", "--out", forward]),
        ]);
        expect(printed.stdout).toContain("a check catches an attack when it fails at least 95% of draws");
        expect(printed.stdout).toContain("weakest strength caught in at least 95% of draws");

        const files = await Promise.all([readGatePowerFile(sampling), readGatePowerFile(forward)]);
        for (const f of files) {
          expect(f.sizes).toEqual({ replies: 64, texts: 8, probes: 8 });
          expect(f.stock.replies).toBe(12);
          expect(f.stock.tokens).toBeGreaterThan(12);
          for (const m of [...f.points, ...(f.honest ? [f.honest] : [])]) {
            expect(m.pool.replies).toBe(12);
            // a pool smaller than a draw: the replies are bootstrapped
            expect(m.resampling.replies).toBe("bootstrap");
            for (const r of Object.values(m.rates)) {
              expect(r).toBeGreaterThanOrEqual(0);
              expect(r).toBeLessThanOrEqual(1);
            }
            expect(m.cpu_seconds).toBeGreaterThan(0);
          }
        }
        // the same stock pool in both processes, sampled from the same seed
        expect(files[0].stock.digest).toBe(files[1].stock.digest);
        expect(files[0].points.map((p) => `${p.family} ${p.strength}`)).toEqual(["temperature 0.5", "top-k 5"]);
        expect(files[0].honest).toBeNull();
        // the honest engine: every check's false-alarm rate, the forward-pass checks included
        const honest = files[1].honest!;
        expect(Object.keys(honest.rates).sort()).toEqual([...POWER_CHECKS].sort());
        expect(honest.pool).toMatchObject({ texts: 4, probes: 4 });
        expect(honest.figures.fidelity).toBe(0);
        expect(honest.figures.greedy).toBe(1);
        expect(honest.rates.fidelity).toBe(0);
        const [quantized] = files[1].points;
        expect(quantized!.figures.fidelity).toBeGreaterThan(1e-3);
        expect(quantized!.rates.fidelity).toBe(1);
        // a sampling attack leaves the forward pass alone: its fixed texts and probes are not measured
        expect(files[0].points[0]!.rates.fidelity).toBeUndefined();
        // halving the temperature is far beyond what the sampled checks need, even at 64 replies
        expect(files[0].points[0]!.rates.argmax).toBe(1);

        await run(["--from", `${sampling},${forward}`, "--into", report]);
        const stored = (await readCalibrationReport(report)).gate_power!;
        expect(stored).toEqual(gatePowerEvidence(files));
        expect(stored.honest!.rates).toEqual(honest.rates);
        expect(stored.thresholds.map((t) => `${t.family} ${t.side}`)).toContain("quantization above");
        expect(stored.thresholds.find((t) => t.check === "fidelity")).toMatchObject({
          family: "quantization",
          smallest: 1,
          at_weakest: true,
        });

        // a strength the simulated engine refuses: exit 2, naming the flag
        const bad = await run(["--families", "top-k", "--top-k", "0"]).catch(
          (e: { code: number; stderr: string }) => e,
        );
        expect(bad).toMatchObject({ code: 2 });
        expect((bad as { stderr: string }).stderr).toContain("--top-k 0: --top-k must be an integer from 1 to 1000");
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    4 * 60_000,
  );
});
