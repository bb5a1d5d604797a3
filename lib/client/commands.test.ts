import { describe, expect, it } from "vitest";
import { type Command, parseCommand } from "./commands";
import { ClientError, EXIT } from "./exit-codes";

const COMMIT = "0123456789abcdef0123456789abcdef01234567";

function refused(argv: string[]): string {
  try {
    parseCommand(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).exitCode).toBe(EXIT.usage);
    return (error as ClientError).message;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
}

describe("the CLI's command line", () => {
  it("reads the seeds' submit command", () => {
    const argv = ["submit", "--task", "qwen3-8b", "--split", "dev", "--engine", "my-engine/"];
    const more = ["--speculator", `org/repo@${COMMIT}`, "--method", "EAGLE-3 k=4", "--kind", "eagle3", "--wait"];
    expect(parseCommand([...argv, ...more])).toEqual({
      verb: "submit",
      task: "qwen3-8b",
      split: "dev",
      engine: "my-engine/",
      speculator: { uri: "org/repo", revision: COMMIT },
      method: "EAGLE-3 k=4",
      kind: "eagle3",
      wait: true,
    } satisfies Command);
    expect(parseCommand(["submit", "--task", "qwen35-27b", "--engine", "e", "--profile", "smoke"])).toMatchObject({
      split: "dev",
      kind: "other",
      profile: "smoke",
      wait: false,
    });
  });

  it("reads status, watch, budget, board and local", () => {
    expect(parseCommand(["status", "abc_123"])).toEqual({ verb: "status", id: "abc_123", json: false });
    expect(parseCommand(["watch", "abc"])).toEqual({ verb: "watch", id: "abc" });
    expect(parseCommand(["budget", "--json"])).toEqual({ verb: "budget", json: true });
    expect(parseCommand(["board"])).toEqual({ verb: "board", task: undefined, json: false });
    expect(parseCommand(["board", "--task", "qwen3-8b"])).toMatchObject({ task: "qwen3-8b" });
    expect(parseCommand(["local", "--task", "qwen3-8b", "--engine", "e", "--sim-speed", "20"])).toEqual({
      verb: "local",
      task: "qwen3-8b",
      engine: "e",
      profile: "full",
      "sim-speed": 20,
      json: false,
    });
    expect(parseCommand([])).toEqual({ verb: "help" });
    expect(parseCommand(["submit", "--help"])).toEqual({ verb: "help" });
  });

  it("refuses bad arguments with a message naming each", () => {
    expect(refused(["submit", "--task", "qwen9-1b", "--engine", "e"])).toMatch(
      /^--task: must be one of qwen3-8b, qwen35-27b/,
    );
    expect(refused(["submit", "--task", "qwen3-8b"])).toMatch(/^--engine: is required: the engine directory/);
    expect(refused(["submit", "--task", "qwen3-8b", "--engine", "e", "--speculator", "org/repo@main"])).toMatch(
      /^--speculator: must name an exact commit after @: 40 lowercase hex characters/,
    );
    expect(refused(["submit", "--task", "qwen3-8b", "--engine", "e", "--speculator", "repo"])).toMatch(
      /^--speculator: must be a Hugging Face repository and commit/,
    );
    expect(refused(["submit", "--task", "qwen3-8b", "--engine", "e", "--kind", "magic"])).toMatch(
      /^--kind: must be one of/,
    );
    expect(refused(["submit", "--task", "qwen3-8b", "--engine", "e", "--split", "prod"])).toMatch(/^--split: must be/);
    expect(refused(["submit", "--task", "qwen3-8b", "--engine", "e", "--method", "x".repeat(61)])).toMatch(
      /^--method: must be at most 60 characters/,
    );
    expect(refused(["submit", "--task", "qwen3-8b", "--engine", "e", "--colour"])).toMatch(/Unknown option '--colour'/);
    expect(refused(["status"])).toMatch(/^status: the submission id is required/);
    expect(refused(["status", "../etc"])).toMatch(/^status: "..\/etc" is not a submission id/);
    expect(refused(["budget", "--task", "qwen3-8b"])).toMatch(/^budget takes no --task/);
    expect(refused(["deploy"])).toMatch(/^unknown command "deploy"/);
    expect(refused(["deploy", "--help"])).toMatch(/^unknown command "deploy"/);
    expect(refused(["local", "--task", "qwen3-8b", "--engine", "e", "--sim-speed", "0"])).toMatch(
      /^--sim-speed: must be a positive number/,
    );
  });
});
