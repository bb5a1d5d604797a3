import { describe, expect, it } from "vitest";
import { acceptanceBetween, acceptanceCredibility } from "./acceptance";
import { parsePrometheus } from "./prometheus";

const snapshot = (
  drafts: number,
  accepted: number,
  pos: number[],
) => `# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} ${drafts}
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} ${drafts * 3}
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} ${accepted}
${pos.map((v, i) => `vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="${i}"} ${v}`).join("\n")}
vllm:num_requests_running{model_name="m"} 3
`;

describe("acceptance from /metrics deltas", () => {
  it("parses Prometheus text with labels, escapes and timestamps", () => {
    const s = parsePrometheus('a_total{x="q\\"uote",y="2"} 1.5e3 1700000000\nb NaN\n# c 1\nbad line here\n');
    expect(s).toEqual([
      { name: "a_total", labels: { x: 'q"uote', y: "2" }, value: 1500 },
      { name: "b", labels: {}, value: Number.NaN },
    ]);
  });

  it("gives 1 + Δaccepted/Δdrafts and per-position rates", () => {
    const a = acceptanceBetween(
      parsePrometheus(snapshot(100, 150, [80, 50, 20])),
      parsePrometheus(snapshot(300, 450, [240, 150, 60])),
    );
    expect(a).not.toBeNull();
    expect(a!.drafts).toBe(200);
    expect(a!.draftTokens).toBe(600);
    expect(a!.meanAcceptedLength).toBeCloseTo(2.5, 10);
    expect(a!.perPosition.map((x) => Number(x.toFixed(6)))).toEqual([0.8, 0.5, 0.2]);
  });

  it("is null without speculation counters or without drafts", () => {
    expect(acceptanceBetween(parsePrometheus("x 1\n"), parsePrometheus("x 2\n"))).toBeNull();
    expect(acceptanceBetween(parsePrometheus(snapshot(5, 5, [])), parsePrometheus(snapshot(5, 5, [])))).toBeNull();
    expect(acceptanceBetween(null, parsePrometheus(snapshot(5, 5, [])))).toBeNull();
  });
});

describe("whether an acceptance report is possible", () => {
  it("believes an honest report: 3 draft tokens a step, at most 4 tokens per verify step", () => {
    const a = acceptanceBetween(
      parsePrometheus(snapshot(100, 150, [80, 50, 20])),
      parsePrometheus(snapshot(300, 450, [240, 150, 60])),
    )!;
    expect(acceptanceCredibility(a)).toEqual({ credible: true, why: null });
    // every draft fully accepted: exactly k + 1
    expect(acceptanceCredibility({ drafts: 10, draftTokens: 30, acceptedTokens: 30 }).credible).toBe(true);
  });

  it("flags an inflated accepted counter: more accepted than drafted, and above k + 1 per step", () => {
    // the issue's engine: 5.5 tokens per verify step for a 3-token speculator
    const inflated = acceptanceBetween(parsePrometheus(snapshot(100, 0, [])), parsePrometheus(snapshot(300, 900, [])))!;
    expect(inflated.meanAcceptedLength).toBeCloseTo(5.5, 10);
    expect(acceptanceCredibility(inflated)).toEqual({
      credible: false,
      why: "it reports more tokens accepted (900) than drafted (600)",
    });
    // without a drafted-token counter, k is the number of positions it reports
    expect(
      acceptanceCredibility({ drafts: 100, draftTokens: null, acceptedTokens: 450, perPosition: [1, 1, 1] }),
    ).toEqual({ credible: false, why: "5.50 tokens per verify step is above k + 1 = 4" });
    expect(
      acceptanceCredibility({ drafts: 100, draftTokens: 300, acceptedTokens: 90, perPosition: [1.2, 0, 0] }),
    ).toMatchObject({ credible: false, why: "a draft position accepted more often than there were drafts" });
  });

  it("flags counters that went backwards or accepted without drafting; nothing to check against is no fault", () => {
    expect(acceptanceCredibility({ drafts: 10, draftTokens: 30, acceptedTokens: -5 }).credible).toBe(false);
    expect(acceptanceCredibility({ drafts: 0, draftTokens: 0, acceptedTokens: 5 }).why).toBe(
      "it accepted tokens without drafting any",
    );
    expect(acceptanceCredibility({ drafts: 10, draftTokens: null, acceptedTokens: 60 }).credible).toBe(true);
  });
});
