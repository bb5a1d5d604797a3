import { describe, expect, it } from "vitest";
import { GET as getVersion } from "@/app/api/protocol/[version]/route";
import { GET as getCurrent } from "@/app/api/protocol/route";
import { calibrationReportSchema } from "./calibration-schema";
import { calibrationsFor, parseCalibrations, publishedProtocol } from "./calibrations";
import { currentProtocol } from "./index";

describe("the protocol's calibration reports", () => {
  it("loads each committed report through its schema, filed under its own version and task", () => {
    const calibrations = calibrationsFor("1");
    const report = calibrations["qwen3-8b"];
    expect(report).not.toBeNull();
    expect(calibrationReportSchema.parse(report)).toEqual(report);
    expect(report!.protocol_version).toBe("1");
    expect(report!.task).toBe("qwen3-8b");
    // a test profile's report says it is not the full protocol's evidence
    expect(report!.full_protocol).toBe(report!.profile === "full");
    if (!report!.full_protocol) expect(report!.label).toContain("not the full protocol's evidence");
    expect(calibrations["qwen35-27b"]).toBeNull();
  });

  it("refuses a report filed under another task or version", () => {
    const report = calibrationsFor("1")["qwen3-8b"]!;
    expect(() => parseCalibrations("1", { "qwen35-27b": report })).toThrow(
      "the calibration report filed as v1/qwen35-27b is for v1/qwen3-8b",
    );
    expect(() => parseCalibrations("2", { "qwen3-8b": report })).toThrow("filed as v2/qwen3-8b is for v1/qwen3-8b");
    expect(() => parseCalibrations("1", { "qwen3-8b": { ...report, kind: "other" } })).toThrow();
  });

  it("is served by GET /api/protocol and /api/protocol/1 beside the values it is the evidence of", async () => {
    const expected = JSON.parse(JSON.stringify(publishedProtocol(currentProtocol())));
    const current = (await getCurrent().json()) as typeof expected;
    expect(current.calibration).toEqual(expected.calibration);
    expect(current.calibration["qwen3-8b"].aa.runs.length).toBeGreaterThan(0);
    expect(current.tasks["qwen3-8b"].gates.fidelityCeiling.value).toBe(1e-3);
    const byVersion = await getVersion(new Request("http://a/api/protocol/1"), {
      params: Promise.resolve({ version: "1" }),
    });
    expect((await byVersion.json()).calibration).toEqual(expected.calibration);
  });
});
