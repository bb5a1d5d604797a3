import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PATH_WORD, publicText, scrubHostPaths } from "./public-reason";

const scrub = (text: string) => scrubHostPaths(text).text;

describe("scrubHostPaths", () => {
  it("replaces the data dir, the repository, /tmp and other host paths, keeping the words around them", () => {
    expect(
      scrub(
        "EISDIR: illegal operation on a directory, open '/work/main/.arena/data/evaluations/c1/a1/engine/launch.sh'",
      ),
    ).toBe(`EISDIR: illegal operation on a directory, open '${PATH_WORD}'`);
    expect(scrub(`the engine directory holds a link (${join(tmpdir(), "arena-git-Xy12/l")})`)).toBe(
      `the engine directory holds a link (${PATH_WORD})`,
    );
    expect(scrub("the tokenizer directory /srv/targets/qwen3-8b has no tokenizer.json")).toBe(
      `the tokenizer directory ${PATH_WORD} has no tokenizer.json`,
    );
    expect(scrub("Error: boom | at runPod (/opt/arena/lib/pods/agent/run-pod.ts:12:3) | at /tmp")).toBe(
      `Error: boom | at runPod (${PATH_WORD}) | at ${PATH_WORD}`,
    );
    expect(scrub("fatal: could not read from file:///srv/git/org/engine: permission denied")).toBe(
      `fatal: could not read from ${PATH_WORD}: permission denied`,
    );
    expect(scrub("no test pool: the public data (/data/shared) is absent.")).toBe(
      `no test pool: the public data (${PATH_WORD}) is absent.`,
    );
  });

  it("keeps what only looks like a path: endpoints, URLs, repositories, ratios and units", () => {
    const kept = [
      "the engine did not answer /health within 30 s",
      "/v1/chat/completions answered 500; /metrics was empty",
      "speculator https://huggingface.co/org/x/tree/abc was not found; org/repo@0123",
      "1/3 of the passes at 120 tok/s, ≤ 165.2 GiB, ±0.02",
      "the candidate's plugin/ did not install: pip: No matching distribution",
      'engine subdir "l/./" passes through a link ("l"); links are not allowed',
    ];
    for (const text of kept) expect(scrub(text)).toBe(text);
  });

  it("says what it replaced", () => {
    expect(scrubHostPaths("open '/var/lib/x' and '/tmp/y'").replaced).toEqual(["/var/lib/x", "/tmp/y"]);
    expect(scrubHostPaths("nothing here").replaced).toEqual([]);
  });
});

describe("publicText", () => {
  afterEach(() => vi.restoreAllMocks());

  it("logs the original for the operators when it replaces a path, and only then", () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    expect(publicText("open '/tmp/arena-x/launch.sh'", { evaluationId: "e1" })).toBe(`open '${PATH_WORD}'`);
    expect(publicText("the engine did not answer /health within 30 s")).toBe(
      "the engine did not answer /health within 30 s",
    );
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0]!)).toMatchObject({
      level: "warn",
      evaluationId: "e1",
      original: "open '/tmp/arena-x/launch.sh'",
    });
  });
});
