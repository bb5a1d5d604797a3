import { describe, expect, it } from "vitest";
import { currentProtocol } from "../protocol";
import { calibrationReportSchema } from "../protocol/calibration-schema";
import { buildCalibrationReport, reportLabel } from "./build-report";
import { figures, pod } from "./calibration-fixtures";
import { formatCalibration } from "./format-report";

const input = (profile: string) => ({
  protocol: currentProtocol(),
  task: "qwen3-8b" as const,
  profile,
  requestedAa: 3,
  aa: [
    pod("stock", figures({ passes: { solo: [1.01, 1.01, 1.01], team: [1, 1, 1], busy: [1, 1, 1] } }), "a"),
    pod("stock", figures(), "b"),
    { ...pod("stock", figures(), "c"), outcome: "error" as const, reason: "the pod agent exited", record: null },
  ],
  references: [
    pod("ngram-4", figures({ passes: { solo: [1.5, 1.5, 1.5], team: [1.2, 1.2, 1.2], busy: [1, 1, 1] } }), "d"),
  ],
  cacheTargets: { tokenWeighted: 0.366, perRequest: 0.384, source: "the data card" },
  simSpeed: 1,
  concurrency: 1,
  createdAt: new Date("2026-11-02T10:00:00Z"),
  wallSeconds: 1234.4,
});

const audit = (p: number, replies = 512) => ({
  replies,
  tokens: replies * 300,
  informative: replies * 250,
  ad: p < 0.01 ? 9 : 0.5,
  p_value: p,
  ks_d: 0.01,
  ks_p_value: p,
  mean_u: 0.5,
  outside_share: 0,
  alpha: 0.01,
  outside_tolerance: 0.001,
  consistent: p >= 0.01,
});
const audited = (candidate: number, stock: number) => ({
  gated: false as const,
  sampling: { temperature: 0.7, top_k: 20, top_p: 0.8 },
  candidate: audit(candidate),
  stock: audit(stock),
});

describe("the calibration report", () => {
  it("holds every run, the noise, the gates and the cache figures, and passes its schema", () => {
    const report = buildCalibrationReport(input("smoke"));
    expect(calibrationReportSchema.parse(report)).toEqual(report);
    expect(report.aa.runs.map((r) => [r.seed, r.outcome])).toEqual([
      ["a", "scored"],
      ["b", "scored"],
      ["c", "error"],
    ]);
    expect(report.aa.specscore_error!.n).toBe(2);
    expect(report.aa.specscore_error!.max).toBeCloseTo(1.01 ** (1 / 3) - 1, 12);
    expect(report.references[0]).toMatchObject({ key: "ngram-4", outcome: "scored", failed_gates: [] });
    expect(report.references[0]!.ratios).toEqual({ solo: 1.5, team: 1.2, busy: 1 });
    expect(report.gates).toHaveLength(6);
    expect(report.think_time).toEqual({ cap_seconds: 300, scale: 0.25, interleave: { solo: 1, team: 2, busy: 2 } });
    expect(report.wall_seconds).toBe(1234);
    expect(report.device).toBe("simulated B200");
    expect(report.created_at).toBe("2026-11-02T10:00:00.000Z");
  });

  it("labels a test profile's run as not the full protocol's evidence, and the full profile's as the evidence", () => {
    const smoke = buildCalibrationReport(input("smoke"));
    expect(smoke.full_protocol).toBe(false);
    expect(smoke.label).toBe(reportLabel("smoke", "1"));
    expect(smoke.label).toContain("not the full protocol's evidence");
    expect(smoke.not_measured[0]).toBe("the full profile: this run is under smoke");
    const full = buildCalibrationReport(input("full"));
    expect(full.full_protocol).toBe(true);
    expect(full.label).toContain("evidence for version 1");
    expect(full.not_measured.some((l) => l.startsWith("the full profile"))).toBe(false);
  });

  it("counts the sampling audit's false alarms over both sides of every A/A run, and each reference's verdict", () => {
    const base = input("full");
    const report = buildCalibrationReport({
      ...base,
      aa: [
        pod("stock", figures({ samplingAudit: audited(0.42, 0.003) }), "a"),
        pod("stock", figures({ samplingAudit: audited(0.9, 0.2) }), "b"),
        { ...pod("stock", figures(), "c"), outcome: "error" as const, record: null },
      ],
      references: [pod("ngram-4", figures({ samplingAudit: audited(0.0001, 0.5) }), "d")],
    });
    expect(report.sampling_audit).toEqual({
      alpha: 0.01,
      aa: { audits: 4, false_alarms: 1, p_values: [0.42, 0.003, 0.9, 0.2] },
      references: [
        {
          key: "ngram-4",
          candidate: { p_value: 0.0001, consistent: false, replies: 512, tokens: 153600 },
          stock: { p_value: 0.5, consistent: true, replies: 512, tokens: 153600 },
        },
      ],
      // figures() answered 128 likelihood requests per engine; the full profile asks 512
      likelihood_replies: { asked: 512, min: 128, max: 128 },
    });
    expect(calibrationReportSchema.parse(report)).toEqual(report);
  });

  it("prints its headline figures", () => {
    const text = formatCalibration(buildCalibrationReport(input("smoke")));
    expect(text).toContain("profile smoke");
    expect(text).toContain("A/A SpecScore error: mean 0.17%, max 0.33%");
    expect(text).toContain("reference ngram-4: scored");
    expect(text).toContain("returning-session cached share: not measured");
  });
});
