import { describe, expect, it } from "vitest";
import { parseInstallArgs, parseServeArgs } from "./cli-args";

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
