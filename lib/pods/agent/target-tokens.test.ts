import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURE_TOKENIZER_DIR } from "../../tokenizer/fixtures/build-fixture";
import type { AgentEvent } from "./events";
import { targetTokensLoader, UnusableTokenizer } from "./target-tokens";

const empty = mkdtempSync(join(tmpdir(), "target-tokens-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe("targetTokensLoader", () => {
  it("checks the files without loading, loads once when asked, and says what it counts with", async () => {
    const events: AgentEvent[] = [];
    const tokens = targetTokensLoader(FIXTURE_TOKENIZER_DIR, (e) => events.push(e));
    expect(tokens.check()).toBeNull();
    expect(events).toEqual([]);
    const first = tokens.load();
    expect(tokens.load()).toBe(first);
    const ready = await tokens.ready();
    expect(await first).toBe(ready);
    expect(await ready.counter.count("hello world")).toBe(ready.tokenizer.encode("hello world").length);
    expect(events).toEqual([
      {
        type: "log",
        level: "info",
        message: `counting with the target's tokenizer: ${ready.tokenizer.vocabSize} tokens, sha256 ${ready.tokenizer.fingerprint.slice(0, 16)}`,
      },
    ]);
    await tokens.close();
  });

  it("names the missing file at the check, and voids the pod with the public reason only", async () => {
    const events: AgentEvent[] = [];
    const tokens = targetTokensLoader(empty, (e) => events.push(e));
    const missing = tokens.check();
    expect(missing?.message).toBe(`the tokenizer directory ${empty} has no tokenizer.json`);
    tokens.voidPod(missing!);
    expect(events).toEqual([
      { type: "log", level: "error", message: `the target's tokenizer: ${missing!.message}` },
      { type: "result", outcome: "void", reason: "the task's target has no usable tokenizer", record: null },
    ]);
  });

  it("settles a failed load as its error, and ready() throws it as an unusable tokenizer", async () => {
    const tokens = targetTokensLoader(empty, () => undefined);
    const loaded = await tokens.load();
    expect(loaded).toBeInstanceOf(Error);
    const thrown = await tokens.ready().catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(UnusableTokenizer);
    expect((thrown as UnusableTokenizer).cause).toBe(loaded);
    // nothing was opened, so nothing is closed
    await expect(tokens.close()).resolves.toBeUndefined();
  });
});
