import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ProtocolView } from "@/components/protocol/protocol-view";
import { buildCalibrationReport } from "@/lib/calibration/build-report";
import { figures, pod } from "@/lib/calibration/calibration-fixtures";
import { currentProtocol } from "@/lib/protocol";
import { POWER_CHECK_KEYS } from "@/lib/protocol/calibration-schema";
import { parseCalibrations, publishedProtocol } from "@/lib/protocol/calibrations";
import { POWER_CHECKS } from "../stats/gate-power";
import { gatePowerEvidence, withGatePower } from "./gate-power-evidence";
import type { GatePowerFile, PowerMeasurement, PowerPoint } from "./gate-power-file";
import { formatThresholds } from "./gate-power-format";

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&#x27;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&")
    .replace(/\s+/g, " ");

const measurement = (rates: PowerMeasurement["rates"], texts = 0): PowerMeasurement => ({
  pool: { replies: 2048, tokens: 300_000, texts, probes: texts },
  resampling: { replies: "subsample", texts: texts ? "subsample" : null, probes: texts ? "subsample" : null },
  rates,
  figures: { likelihood: { gap: 0, se: 0.01 }, argmax: null, audit_p: 0.5, fidelity: null, greedy: null },
  wall_seconds: 100,
  cpu_seconds: 95,
});
const sampled = (likelihood: number, argmax: number, audit: number): PowerMeasurement["rates"] => ({
  likelihood,
  argmax,
  audit,
  gates: Math.max(likelihood, argmax),
});
const point = (family: PowerPoint["family"], strength: number, rates: PowerMeasurement["rates"]): PowerPoint => ({
  family,
  strength,
  ...measurement(rates, family === "quantization" ? 256 : 0),
});

/** One process's file of a run under the full profile: seed 1, the stock pool whose digest `digest` says. */
const file = (
  points: PowerPoint[],
  honest: PowerMeasurement | null,
  digest = "300000:42000:-250000.0",
): GatePowerFile => ({
  kind: "speculatorarena.gate-power",
  task: "qwen3-8b",
  profile: "full",
  seed: 1,
  sim_speed: 1000,
  max_tokens: 512,
  resamples: 1000,
  target: 0.95,
  cores: 16,
  sizes: { replies: 512, texts: 64, probes: 64 },
  limits: {
    z: 1.96,
    likelihood_bound: 0.02,
    argmax_bound: 0.003,
    fidelity_ceiling: 0.001,
    greedy_floor: 0.5,
    audit_alpha: 0.01,
    outside_tolerance: 0.001,
  },
  stock: { replies: 2048, tokens: 300_000, digest, wall_seconds: 100, cpu_seconds: 90 },
  honest,
  points,
  wall_seconds: 300,
});

const quantized = (s: number, fidelity: number, greedy: number) =>
  point("quantization", s, { ...sampled(0.05, 0.1, 0.3), fidelity, greedy, gates: fidelity });

// three processes of one run side by side: the honest engine, the temperature sweep, top_k and quantization
const runs = [
  file([], measurement({ ...sampled(0, 0.012, 0.009), fidelity: 0, greedy: 0, gates: 0.012 }, 256)),
  file(
    [
      point("temperature", 0.95, sampled(0.02, 0.41, 0.7)),
      point("temperature", 0.9, sampled(0.2, 0.97, 1)),
      point("temperature", 0.8, sampled(0.9, 1, 1)),
      point("temperature", 1.05, sampled(0.01, 0.3, 0.9)),
      point("temperature", 1.1, sampled(0.1, 0.8, 1)),
    ],
    null,
  ),
  file(
    [
      point("top-k", 15, sampled(0, 0.2, 0.99)),
      point("top-k", 10, sampled(0.3, 0.9, 1)),
      point("top-k", 5, sampled(0.99, 1, 1)),
      quantized(0.01, 0, 0),
      quantized(0.05, 1, 0),
      quantized(1, 1, 0.2),
    ],
    null,
  ),
];

/** A report as npm run calibrate builds it (one A/A run), saying the power is not measured. */
const builtReport = () =>
  buildCalibrationReport({
    protocol: currentProtocol(),
    task: "qwen3-8b",
    profile: "full",
    requestedAa: 1,
    aa: [pod("stock", figures(), "a")],
    references: [],
    cacheTargets: { tokenWeighted: 0.366, perRequest: 0.384, source: "the data card" },
    simSpeed: 1,
    concurrency: 1,
    createdAt: new Date("2026-12-02T10:00:00Z"),
    wallSeconds: 600,
  });

describe("the gates' power in the calibration report", () => {
  it("merges a run's files into each check's weakest strength caught per side of each family's sweep", () => {
    const evidence = gatePowerEvidence(runs);
    expect(evidence.honest!.rates).toEqual({
      likelihood: 0,
      argmax: 0.012,
      audit: 0.009,
      fidelity: 0,
      greedy: 0,
      gates: 0.012,
    });
    expect(evidence.points.map((p) => `${p.family} ${p.strength}`)).toEqual([
      "temperature 0.8",
      "temperature 0.9",
      "temperature 0.95",
      "temperature 1.05",
      "temperature 1.1",
      "top-k 5",
      "top-k 10",
      "top-k 15",
      "quantization 0.01",
      "quantization 0.05",
      "quantization 1",
    ]);
    const at = (check: string, family: string, side = "below") =>
      evidence.thresholds.find((t) => t.check === check && t.family === family && t.side === side);
    expect(at("argmax", "temperature")).toMatchObject({
      strengths: [0.95, 0.9, 0.8],
      smallest: 0.9,
      at_weakest: false,
    });
    expect(at("likelihood", "temperature")!.smallest).toBe(null);
    expect(at("argmax", "temperature", "above")).toMatchObject({ strengths: [1.05, 1.1], smallest: null });
    expect(at("audit", "temperature", "above")).toMatchObject({ smallest: 1.1, at_weakest: false });
    expect(at("audit", "top-k")).toMatchObject({ strengths: [15, 10, 5], smallest: 15, at_weakest: true });
    expect(at("fidelity", "quantization", "above")).toMatchObject({ smallest: 0.05, at_weakest: false });
    expect(at("greedy", "quantization", "above")!.smallest).toBe(null);
    // the sampling families measure no fixed texts or probes: those checks have no threshold there
    expect(at("fidelity", "temperature")).toBeUndefined();
    expect(formatThresholds(evidence)).toContain("false alarms on the honest engine");

    // a later file's point replaces an earlier one's at the same strength
    const again = gatePowerEvidence([...runs, file([point("top-k", 15, sampled(0, 0.96, 1))], null)]);
    expect(again.points.find((p) => p.family === "top-k" && p.strength === 15)!.rates.argmax).toBe(0.96);
  });

  it("refuses to merge files of different runs", () => {
    expect(() => gatePowerEvidence([runs[0]!, { ...runs[1]!, profile: "ci" }])).toThrow(
      "gate-power files of one run only: profile is full in one and ci in another",
    );
    expect(() => gatePowerEvidence([runs[0]!, file([], null, "1:2:3")])).toThrow("their stock pools differ");
    expect(() => gatePowerEvidence([])).toThrow("no gate-power file");
  });

  it("parses in the report the protocol serves, drops the line saying it is not measured, and renders on /protocol", () => {
    // a report as npm run calibrate builds it, saying the power is not measured
    const built = builtReport();
    expect(built.gate_power).toBeUndefined();
    expect(built.not_measured.filter((l) => l.startsWith("the gates' power"))).toHaveLength(1);
    const report = withGatePower(built, gatePowerEvidence(runs));
    expect(report.not_measured).toEqual(built.not_measured.filter((l) => !l.startsWith("the gates' power")));
    // under another profile than the report's, the line stays
    expect(withGatePower(built, { ...gatePowerEvidence(runs), profile: "ci" }).not_measured).toEqual(
      built.not_measured,
    );

    const served = JSON.parse(
      JSON.stringify(publishedProtocol(currentProtocol(), parseCalibrations("1", { "qwen3-8b": report }))),
    );
    expect(served.calibration["qwen3-8b"].gate_power).toEqual(report.gate_power);
    const page = text(renderToStaticMarkup(createElement(ProtocolView, { protocol: served })));
    expect(page).toContain("The gates' power against the simulated attacks");
    expect(page).toContain(
      "Check temperature × s < 1 temperature × s > 1 top_k K < 20 perturbation × s > 0 False alarms (stock as candidate)",
    );
    expect(page).toContain(
      "First-choice share 0.9 (0.95: 41%, 0.9: 97%, 0.8: 100%) none caught (1.05: 30%, 1.1: 80%) 5 (15: 20%, 10: 90%, 5: 100%)",
    );
    expect(page).toContain(
      "Target fidelity not measured not measured not measured 0.05 (0.01: 0%, 0.05: 100%, 1: 100%) 0.0%",
    );
    expect(page).toContain(
      "At the full profile's sizes: 512 sampled replies per engine, 64 fixed texts, 64 greedy probes.",
    );
    expect(page).toContain(
      "from a pool of 2048 replies per engine (max_tokens 512; the stock engine's own pool of 2048",
    );
    expect(page).toContain("each draw a subset of the pool, without replacement");
  });

  it("reads the false alarms over independent honest pools of other seeds, and shows them on /protocol", () => {
    const pool = (seed: number, audit: number, auditP: number): GatePowerFile => {
      const h = measurement({ ...sampled(0, 0, audit), fidelity: 0, greedy: 0, gates: 0 }, 256);
      return { ...file([], { ...h, figures: { ...h.figures, audit_p: auditP } }, `other-${seed}`), seed };
    };
    // the run's own honest pool (seed 1: audit 0.009) and two more
    const evidence = gatePowerEvidence([...runs, pool(3, 0.02, 0.3), pool(7, 0.001, 0.004)]);
    expect(evidence.false_alarms!.seeds).toEqual([1, 3, 7]);
    expect(evidence.false_alarms!.audit_p).toEqual([0.5, 0.3, 0.004]);
    const audit = evidence.false_alarms!.rates.audit!;
    expect(audit.mean).toBeCloseTo(0.01, 12);
    // sd of (0.009, 0.02, 0.001) is 0.009539; over √3 pools
    expect(audit.se).toBeCloseTo(0.0095394 / Math.sqrt(3), 6);
    // gates: (0.012, 0, 0), sd 0.006928 over √3
    expect(evidence.false_alarms!.rates.gates!.mean).toBeCloseTo(0.004, 12);
    expect(evidence.false_alarms!.rates.gates!.se).toBeCloseTo(0.004, 9);
    // the run's own attacks and honest engine are unchanged by the pools
    expect(evidence.honest).toEqual(gatePowerEvidence(runs).honest);
    expect(evidence.points).toEqual(gatePowerEvidence(runs).points);
    expect(formatThresholds(evidence)).toContain(
      "false alarms over 3 independent honest pools (mean of the pools' rates ± 1.96 se): likelihood 0.000 ± 0.000, first-choice 0.004 ± 0.008, audit 0.010 ± 0.011",
    );
    expect(formatThresholds(evidence)).toContain("the audit on each whole pool below its level in 1 of 3");

    // pools of seeds 1 apart share replies; a file of another seed must be an honest pool only
    expect(() => gatePowerEvidence([...runs, pool(2, 0.01, 0.5)])).toThrow(
      "honest pools of seeds 1 and 2 share replies",
    );
    expect(() =>
      gatePowerEvidence([...runs, { ...file([point("top-k", 5, sampled(1, 1, 1))], null), seed: 3 }]),
    ).toThrow("a file of seed 3 beside the run's seed 1 must be an honest pool only (--families honest)");

    const report = withGatePower(builtReport(), evidence);
    const served = JSON.parse(
      JSON.stringify(publishedProtocol(currentProtocol(), parseCalibrations("1", { "qwen3-8b": report }))),
    );
    const page = text(renderToStaticMarkup(createElement(ProtocolView, { protocol: served })));
    expect(page).toContain("Sampling audit (shown, not gated)");
    expect(page).toMatch(/Sampling audit \(shown, not gated\) .* 1\.0% ± 1\.1% \(3 pools\)/);
    expect(page).toContain(
      "False alarms: the mean of the rates of 3 independent honest pools (the stock engine as its own candidate, seeds 1, 3, 7), as the draws of one pool share its replies; the sampling audit on each whole pool was below its level in 1 of them.",
    );
  });

  it("knows the same checks as the power module", () => {
    expect([...POWER_CHECK_KEYS]).toEqual([...POWER_CHECKS]);
  });
});
