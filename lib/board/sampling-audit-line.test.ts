import { describe, expect, it } from "vitest";
import { samplingAuditLine } from "./sampling-audit-line";

describe("samplingAuditLine", () => {
  it("says whether the replies read as exact samples, with the figures and the direction", () => {
    expect(
      samplingAuditLine("stock engine", {
        tokens: 13227,
        p_value: 0.594,
        mean_u: 0.503,
        outside_share: 0,
        consistent: true,
      }),
    ).toBe("stock engine: consistent with exact sampling (13,227 tokens, p = 0.5940)");
    expect(
      samplingAuditLine("candidate", {
        tokens: 3584,
        p_value: 0,
        mean_u: 0.33,
        outside_share: 0.006,
        consistent: false,
      }),
    ).toBe(
      "candidate: not consistent with exact sampling (3,584 tokens, p < 0.0001, leaning to likelier tokens, 0.60% of tokens outside it)",
    );
    expect(samplingAuditLine("candidate", null)).toMatch(/no reply could be audited/);
  });
});
