import { describe, expect, it } from "vitest";
import { acceptanceBetween } from "./acceptance";
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
