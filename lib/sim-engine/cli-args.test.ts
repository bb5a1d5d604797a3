import { describe, expect, it } from "vitest";
import { parseInstallArgs, parseServeArgs, strengthsOfArgs } from "./cli-args";

describe("sim-engine's command line", () => {
  it("reads serve with its flags", () => {
    expect(parseServeArgs(["serve"])).toEqual({});
    expect(parseServeArgs(["serve", "--mode", "eagle", "--k", "3"])).toEqual({ mode: "eagle", k: 3 });
    expect(parseServeArgs(["serve", "--mode=failing", "--fail-rate=0.2"])).toEqual({
      mode: "failing",
      "fail-rate": 0.2,
    });
    expect(parseServeArgs(["serve", "--drafter", "lookahead"])).toEqual({ drafter: "lookahead" });
  });

  it("reads the parametric attacks' strengths as startSimEngine's options", () => {
    const args = parseServeArgs(["serve", "--temperature-scale", "0.9", "--top-k=10", "--quantize-scale", "0.5"]);
    expect(args).toEqual({ "temperature-scale": 0.9, "top-k": 10, "quantize-scale": 0.5 });
    expect(strengthsOfArgs(args)).toEqual({ temperatureScale: 0.9, topK: 10, quantizeScale: 0.5 });
    expect(strengthsOfArgs(parseServeArgs(["serve", "--mode", "eagle"]))).toEqual({});
    // on an attack mode that leaves the sampling alone, the strengths add to it
    expect(parseServeArgs(["serve", "--mode", "quantized", "--quantize-scale", "0.25"])).toEqual({
      mode: "quantized",
      "quantize-scale": 0.25,
    });
  });

  it("names the flag whose strength is out of range, or that clashes with the mode", () => {
    for (const [argv, message] of [
      [["--temperature-scale", "0"], "--temperature-scale must be a number in (0, 10]"],
      [["--temperature-scale", "warm"], "--temperature-scale must be a number in (0, 10]"],
      [["--temperature-scale="], "--temperature-scale must be a number in (0, 10]"],
      [["--top-k", "0"], "--top-k must be an integer from 1 to 1000"],
      [["--top-k", "2.5"], "--top-k must be an integer from 1 to 1000"],
      [["--quantize-scale", "-0.1"], "--quantize-scale must be a number in [0, 100]"],
      [["--quantize-scale", "Infinity"], "--quantize-scale must be a number in [0, 100]"],
      [["--mode", "other-sampling", "--top-k", "5"], "cannot be combined with --mode other-sampling"],
      [["--mode", "greedy", "--temperature-scale", "2"], "cannot be combined with --mode greedy"],
    ] as const) {
      expect(() => parseServeArgs(["serve", ...argv])).toThrow(message);
    }
  });

  it("reads install-plugin with its directory", () => {
    expect(parseInstallArgs(["install-plugin", "/engine/plugin"])).toEqual({ dir: "/engine/plugin" });
    expect(() => parseInstallArgs(["install-plugin"])).toThrow(/expected "install-plugin DIR"/);
    expect(() => parseInstallArgs(["install-plugin", "a", "b"])).toThrow(/expected "install-plugin DIR"/);
  });

  it("names what is wrong", () => {
    expect(() => parseServeArgs(["run"])).toThrow(/expected the command "serve"/);
    expect(() => parseServeArgs(["serve", "--mode", "turbo"])).toThrow(/unknown mode "turbo"/);
    expect(() => parseServeArgs(["serve", "--k", "0"])).toThrow(/--k must be at least 1/);
    expect(() => parseServeArgs(["serve", "--k", "two"])).toThrow(/--k must be/);
    expect(() => parseServeArgs(["serve", "--turbo", "1"])).toThrow(/unknown flag --turbo/);
    expect(() => parseServeArgs(["serve", "--mode"])).toThrow(/--mode needs a value/);
    expect(() => parseServeArgs(["serve", "eagle"])).toThrow(/unexpected argument/);
    expect(() => parseServeArgs(["serve", "--drafter="])).toThrow(/--drafter needs a name/);
  });
});
