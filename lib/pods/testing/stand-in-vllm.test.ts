import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { STAND_IN_VLLM } from "./stand-in-vllm";

/** Runs the stand-in as `vllm serve /target ...flags`; these all stop in its parser, before it serves. */
function serve(...flags: string[]) {
  return spawnSync("python3", [STAND_IN_VLLM, "serve", "/target", ...flags], {
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin", HOME: "/tmp", USER: "arena-engine" } as Record<string, string> as NodeJS.ProcessEnv,
  });
}

describe("the stand-in vllm refuses what vLLM 0.25's parser refuses", () => {
  it("an unknown flag, and a value outside a flag's choices", () => {
    const unknown = serve("--enable-turbo");
    expect([unknown.status, unknown.stderr]).toEqual([
      2,
      expect.stringContaining("unrecognized arguments: --enable-turbo"),
    ]);
    const dtype = serve("--dtype", "fp8");
    expect([dtype.status, dtype.stderr]).toEqual([
      2,
      expect.stringContaining("argument --dtype: invalid choice: 'fp8'"),
    ]);
  });

  it("a --speculative-config that is not JSON or not a SpeculativeConfig", () => {
    const cases: [string, RegExp][] = [
      ["{method: ngram}", /--speculative-config is not JSON/],
      ['{"method": "ngram"}', /num_speculative_tokens must be an integer greater than 0/],
      [
        '{"method": "ngram", "num_speculative_tokens": 4, "lookup_max": 3}',
        /extra inputs are not permitted: lookup_max/,
      ],
      ['{"method": "lookahead", "num_speculative_tokens": 4}', /method 'lookahead' is not a speculative method/],
      [
        '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 2, "prompt_lookup_min": 3}',
        /prompt_lookup_min=3 must be <= prompt_lookup_max=2/,
      ],
      ['{"method": "eagle3", "num_speculative_tokens": 3, "model": "/nonexistent"}', /eagle3 needs `model`/],
    ];
    for (const [config, message] of cases) {
      const run = serve("--speculative-config", config);
      expect(run.status, config).toBe(2);
      expect(run.stderr, config).toMatch(message);
    }
  });
});
