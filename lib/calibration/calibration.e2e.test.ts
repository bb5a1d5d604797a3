import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ProtocolView } from "@/components/protocol/protocol-view";
import { currentProtocol } from "../protocol";
import { parseCalibrations, publishedProtocol } from "../protocol/calibrations";
import { redTeamEnv } from "../red-team/env";
import { readCalibrationReport } from "./report-file";
import { runCalibration } from "./run-calibration";

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&#x27;", "'")
    .replaceAll("&amp;", "&")
    .replace(/\s+/g, " ");

/**
 * `npm run calibrate`'s core on the shortest profile: two A/A evaluation pods (the stock engine as the candidate)
 * through the pod agent, the report written and read back through the schema the protocol loads it with, then served
 * as GET /api/protocol serves a version and rendered as /protocol renders it: its own figures, labelled as a test
 * profile's run.
 */
describe("a calibration run reaches /protocol", () => {
  it(
    "runs two A/A pods under ci, writes its report, and the protocol's JSON and page show its figures",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "calibration-"));
      try {
        const out = join(dir, "qwen3-8b.json");
        const protocol = currentProtocol();
        const pods: string[] = [];
        const report = await runCalibration({
          task: "qwen3-8b",
          profile: "ci",
          aa: 2,
          references: false,
          protocol,
          simSpeed: 2,
          concurrency: 2,
          env: redTeamEnv(process.env),
          out,
          onPod: (pod) => pods.push(`${pod.outcome}: ${pod.reason ?? "no reason"}; ${pod.warnings?.join("; ") ?? ""}`),
        });
        const stored = await readCalibrationReport(out);
        expect(stored).toEqual(report);
        // a pod that ends otherwise says why in the failure: load on the test's cores has voided one before
        expect(
          stored.aa.runs.map((r) => r.outcome),
          pods.join("\n"),
        ).toEqual(["scored", "scored"]);
        expect(stored.full_protocol).toBe(false);
        const noise = stored.aa.speedup_error!;
        expect(noise.n).toBe(2);
        expect(stored.cache.overall.token_weighted).not.toBeNull();

        const calibrations = parseCalibrations(protocol.version, { "qwen3-8b": JSON.parse(JSON.stringify(stored)) });
        const served = JSON.parse(JSON.stringify(publishedProtocol(protocol, calibrations)));
        expect(served.calibration["qwen3-8b"]).toEqual(stored);
        expect(served.calibration["qwen35-27b"]).toBeNull();
        expect(served.tasks["qwen3-8b"].gates.fidelityCeiling.value).toBe(1e-3);

        const page = text(renderToStaticMarkup(createElement(ProtocolView, { protocol: served })));
        const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
        expect(page).toContain(
          `ci profile, ${stored.created_at.slice(0, 10)} (a test profile: not the full protocol's evidence)`,
        );
        expect(page).toContain(`Test profile (ci): ${stored.label}`);
        expect(page).toContain(`speed alone ${pct(noise.mean)} mean, ${pct(noise.max)} at most`);
        const hit = `${(stored.cache.overall.token_weighted! * 100).toFixed(1)}% overall`;
        expect(page).toContain(hit);
        const fidelity = stored.gates.find((g) => g.key === "fidelity")!;
        expect(page).toContain(`passed ${fidelity.aa.passed} of 2`);
        const audit = stored.sampling_audit!;
        expect(audit.aa.audits).toBe(4);
        expect(audit.likelihood_replies.min).toBe(64);
        expect(page).toContain(`${audit.aa.false_alarms} false alarm(s) in 4 audits of the stock engine`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    4 * 60_000,
  );
});
