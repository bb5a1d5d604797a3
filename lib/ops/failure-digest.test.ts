import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createFailureDigest } from "./failure-digest";

const digestOf = (text: string, options?: Parameters<typeof createFailureDigest>[0]) => {
  const digest = createFailureDigest(options);
  for (const line of text.split("\n")) digest.push(line);
  return digest.lines();
};

describe("createFailureDigest", () => {
  it("keeps vitest's failed tests with their errors' messages, without colours, code frames or diffs", () => {
    const lines = digestOf(readFileSync(new URL("./fixtures/vitest-failed-output.txt", import.meta.url), "utf8"));
    expect(lines).toEqual([
      "FAIL   unit  lib/ops/zz-sample.test.ts > fails on purpose",
      "    AssertionError: expected { a: 1 } to deeply equal { a: 2 }",
      "FAIL   unit  lib/ops/zz-sample.test.ts > throws on purpose",
      "    Error: the pod exited: stock engine died during solo",
    ]);
  });

  it("keeps Playwright's numbered failures", () => {
    const text = [
      "  ✘  3 e2e/guide.spec.ts:12:1 › the guide shows the kit (2.1s)",
      "",
      "  1) e2e/guide.spec.ts:12:1 › the guide shows the kit ─────────",
      "",
      "    Error: expect(locator).toBeVisible() failed",
      "",
      "      10 |   await page.goto('/guide');",
      "        at /work/main/e2e/guide.spec.ts:11:22",
      "  1 failed",
    ].join("\n");
    expect(digestOf(text)).toEqual([
      "1) e2e/guide.spec.ts:12:1 › the guide shows the kit ─────────",
      "    Error: expect(locator).toBeVisible() failed",
    ]);
  });

  it("keeps a message of many lines (an evaluation's log tail) up to its limit", () => {
    const text = [
      "FAIL e.e2e.test.ts > pipeline",
      "Error: the evaluation failed; its log ends:",
      "  pass 1",
      "  pass 2",
      "  pod exited",
      "",
      "more",
    ].join("\n");
    expect(digestOf(text, { messageLines: 3 })).toEqual([
      "FAIL e.e2e.test.ts > pipeline",
      "    Error: the evaluation failed; its log ends:",
      "    pass 1",
      "    pass 2",
    ]);
  });

  it("names a heading once however often the runner repeats it, and stops at its limit", () => {
    const text = ["FAIL a.test.ts > one", "Error: first", "FAIL a.test.ts > one", "Error: again"].join("\n");
    expect(digestOf(text)).toEqual(["FAIL a.test.ts > one", "    Error: first"]);
    const many = Array.from({ length: 30 }, (_, i) => `FAIL f.test.ts > t${i}\nError: e${i}`).join("\n");
    expect(digestOf(many, { maxLines: 10 })).toHaveLength(10);
  });
});
