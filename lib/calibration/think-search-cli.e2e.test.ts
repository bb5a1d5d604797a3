import { execFile } from "node:child_process";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ProtocolView } from "@/components/protocol/protocol-view";
import { currentProtocol } from "../protocol";
import { parseCalibrations, publishedProtocol } from "../protocol/calibrations";
import { calibrationFile, readCalibrationReport } from "./report-file";
import { readThinkSearchFile, thinkSearchEvidence } from "./think-evidence";

const CLI = new URL("./think-search-cli.ts", import.meta.url).pathname;
const TSX = new URL("../../node_modules/.bin/tsx", import.meta.url).pathname;
const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

describe("npm run calibrate:think", () => {
  it(
    "searches (c, m) on fresh stock engines, writes the search, puts it in a report, and /protocol shows it",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "think-search-"));
      try {
        const report = join(dir, "qwen3-8b.json");
        await copyFile(calibrationFile("1", "qwen3-8b"), report);
        const run = (args: string[]) => promisify(execFile)(TSX, [CLI, ...args], { timeout: 120_000 });
        const team = join(dir, "team.json");
        const busy = join(dir, "busy.json");
        const common = ["--task", "qwen3-8b", "--profile", "ci", "--sim-speed", "4", "--c", "0.25,1", "--m", "2"];
        const [played] = await Promise.all([
          run([...common, "--workloads", "team", "--concurrency", "2", "--out", team]),
          run([...common, "--workloads", "busy", "--concurrency", "2", "--out", busy]),
        ]);
        expect(played.stdout).toContain("data card's targets: 36.6% token-weighted, 38.4% per request");
        const files = await Promise.all([readThinkSearchFile(team), readThinkSearchFile(busy)]);
        expect(files[0].points.map((p) => [p.scale, p.interleave])).toEqual([
          [0.25, 2],
          [1, 2],
        ]);
        for (const p of files.flatMap((f) => f.points)) {
          const [stats] = Object.values(p.workloads);
          expect(stats!.requests).toBeGreaterThan(0);
          expect(stats!.tokenWeighted).toBeGreaterThan(0);
        }

        await run(["--from", `${team},${busy}`, "--into", report]);
        const stored = await readCalibrationReport(report);
        expect(stored.think_search).toEqual(thinkSearchEvidence(files));
        expect(stored.think_search!.points.map((p) => `${p.workload} ${p.scale} ${p.interleave}`)).toEqual([
          "team 0.25 2",
          "team 1 2",
          "busy 0.25 2",
          "busy 1 2",
        ]);
        // the rest of the report is as it was, but for what the search answers
        const before = await readCalibrationReport(calibrationFile("1", "qwen3-8b"));
        expect(stored.not_measured.filter((l) => /search over m and c|returning-session/.test(l))).toEqual([]);
        expect({ ...stored, think_search: before.think_search, not_measured: before.not_measured }).toEqual(before);

        const served = JSON.parse(
          JSON.stringify(publishedProtocol(currentProtocol(), parseCalibrations("1", { "qwen3-8b": stored }))),
        );
        expect(served.calibration["qwen3-8b"].think_search).toEqual(stored.think_search);
        const page = text(renderToStaticMarkup(createElement(ProtocolView, { protocol: served })));
        const n = stored.think_search!.nearest!;
        expect(page).toContain("searched (ci profile, team and busy");
        expect(page).toContain("c ∈ {0.25, 1} × m ∈ {2}");
        expect(page).toContain(
          `nearest the targets: c ${n.scale}, m ${n.interleave}, ${(n.miss * 100).toFixed(1)} points off`,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    4 * 60_000,
  );

  it("merges searches of one task and profile, the mean over workloads choosing the nearest point", () => {
    const file = (workload: "team" | "busy", tw: number, pr: number, scale = 0.25) => ({
      kind: "speculatorarena.think-search" as const,
      task: "qwen3-8b",
      profile: "full",
      seed: "s",
      sim_speed: 1,
      cores: 16,
      cap_seconds: 300,
      targets: { token_weighted: 0.366, per_request: 0.384 },
      points: [
        {
          scale,
          interleave: 2,
          workloads: {
            [workload]: { tokenWeighted: tw, perRequest: pr, returning: 1, returningHistoryCached: 0.5, requests: 10 },
          },
        },
      ],
    });
    const evidence = thinkSearchEvidence([file("team", 0.9, 0.7), file("busy", 0.5, 0.5), file("team", 0.8, 0.6, 1)]);
    expect(evidence.points).toHaveLength(3);
    // c 0.25: means 0.7 / 0.6, worst miss 0.334; c 1: team alone, 0.8 / 0.6, worst miss 0.434
    expect(evidence.nearest).toEqual({ scale: 0.25, interleave: 2, miss: expect.closeTo(0.334, 12) });
    expect(() => thinkSearchEvidence([file("team", 1, 1), { ...file("busy", 1, 1), profile: "ci" }])).toThrow(
      "searches of qwen3-8b under full only: one is of qwen3-8b under ci",
    );
  });
});
