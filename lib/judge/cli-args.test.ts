import { describe, expect, it } from "vitest";
import { pairArgsZ, parseArgs, runArgsZ, USAGE } from "./cli-args";

describe("the command line's arguments", () => {
  it("parses run and pair", () => {
    const r = parseArgs(runArgsZ, [
      "--url",
      "http://127.0.0.1:8000",
      "--task",
      "qwen3-8b",
      "--workload",
      "busy",
      "--profile",
      "smoke",
    ]);
    expect(r).toMatchObject({ url: "http://127.0.0.1:8000", task: "qwen3-8b", workload: ["busy"], profile: "smoke" });
    const p = parseArgs(pairArgsZ, ["--candidate", "http://a:1", "--stock", "http://b:2", "--task", "qwen35-27b"]);
    expect(p).toMatchObject({ workload: ["solo", "team", "busy"], profile: "full" });
  });

  it("takes the target's tokenizer directory, and says in its help what it counts with by default", () => {
    const r = parseArgs(runArgsZ, [
      "--url",
      "http://x:1",
      "--task",
      "qwen35-27b",
      "--tokenizer",
      "/targets/qwen35-27b",
    ]);
    expect(r.tokenizer).toBe("/targets/qwen35-27b");
    expect(parseArgs(runArgsZ, ["--url", "http://x:1", "--task", "qwen3-8b"]).tokenizer).toBeUndefined();
    expect(USAGE).toMatch(/--tokenizer DIR/);
    expect(USAGE).toMatch(/default: the packaged Qwen3 tokenizer/);
  });

  it("names what is wrong", () => {
    expect(() => parseArgs(runArgsZ, ["--url", "ftp://x", "--task", "qwen3-8b"])).toThrow(
      /--url: must be an http\(s\) URL/,
    );
    expect(() => parseArgs(runArgsZ, ["--url", "http://x", "--task", "gpt"])).toThrow(/--task must be one of/);
    expect(() => parseArgs(runArgsZ, ["--url", "http://x", "--task", "qwen3-8b", "--workload", "busy,fast"])).toThrow(
      /unknown workload "fast"/,
    );
    expect(() => parseArgs(runArgsZ, ["--url", "http://x", "--task", "qwen3-8b", "--bogus", "1"])).toThrow(/bogus/);
    expect(() => parseArgs(runArgsZ, ["--url"])).toThrow(/--url needs a value/);
  });
});
