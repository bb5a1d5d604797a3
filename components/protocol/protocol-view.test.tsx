import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { buildCalibrationReport } from "@/lib/calibration/build-report";
import { figures, pod } from "@/lib/calibration/calibration-fixtures";
import { currentProtocol } from "@/lib/protocol";
import { publishedProtocol } from "@/lib/protocol/calibrations";
import { ProtocolView } from "./protocol-view";

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&#x27;", "'")
    .replaceAll("&amp;", "&")
    .replace(/\s+/g, " ");

const report = (profile: string) =>
  buildCalibrationReport({
    protocol: currentProtocol(),
    task: "qwen3-8b",
    profile,
    requestedAa: 2,
    aa: [
      pod("stock", figures({ passes: { solo: [1.02, 1.02, 1.02], team: [1, 1, 1], busy: [1, 1, 1] } }), "a"),
      pod("stock", figures({ fidelity: 3e-4 }), "b"),
    ],
    references: [pod("ngram-4", figures({ fidelity: 0.0015 }), "c")],
    cacheTargets: { tokenWeighted: 0.366, perRequest: 0.384, source: "the data card" },
    simSpeed: 1,
    concurrency: 1,
    createdAt: new Date("2026-11-02T10:00:00Z"),
    wallSeconds: 600,
  });

const render = (profile: string) =>
  text(
    renderToStaticMarkup(
      <ProtocolView
        protocol={publishedProtocol(currentProtocol(), { "qwen3-8b": report(profile), "qwen35-27b": null })}
      />,
    ),
  );

describe("the /protocol page's calibration evidence", () => {
  it("shows a report's figures beside the values in force, with its profile and date", () => {
    const page = render("smoke");
    expect(page).toContain(
      "Calibration report smoke profile, 2026-11-02 (a test profile: not the full protocol's evidence); see the evidence below none yet",
    );
    expect(page).toContain(
      "Qwen3-8B: run under the smoke profile on 2026-11-02: 2 of 2 A/A evaluations scored, 1 simulated reference(s)",
    );
    expect(page).toContain("Test profile (smoke): a run under the smoke test profile");
    // the speed noise in force (the seeds') beside the measured one
    expect(page).toContain("A/A speed noise 0.91% mean, 2.0% at most |SpecScore − 1| 0.33% mean, 0.66% at most (n 2)");
    // the fidelity ceiling, the A/A values and the reference that fails it
    expect(page).toContain("Fidelity ceiling ≤ 0.001:");
    expect(page).toContain("0.00015 (0–0.0003, n 2); passed 2 of 2 ngram-4 0.0015 (fails) -0.0005");
    expect(page).toContain("Cache hit, token-weighted target 36.6% (the data card)");
    expect(page).toContain("Returning session's cached share no target in the data card not measured");
    expect(page).toContain("Qwen3.5-27B No calibration report yet");
  });

  it("labels a full-profile report as the evidence, without the test-profile warning", () => {
    const page = render("full");
    expect(page).toContain("Calibration report full profile, 2026-11-02; see the evidence below");
    expect(page).toContain("the full protocol's calibration: evidence for version 1's calibrated values.");
    expect(page).not.toContain("Test profile (full)");
  });
});
