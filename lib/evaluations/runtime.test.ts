import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { resetEnvForTests } from "../env";
import { FIXTURE_TOKENIZER_DIR } from "../tokenizer/fixtures/build-fixture";
import { qwen3TokenizerDir } from "../tokenizer/packaged-qwen3";
import { TOKENIZER_FILE } from "../tokenizer/target-tokenizer";
import { targetDir } from "./runtime";

/** The target directory is the tokenizer directory every evaluation counts and renders with. */
describe("a task's target directory", () => {
  let base: string;
  let n = 0;
  const targets = (runtime: "sim" | "vllm") => {
    const dir = join(base, `targets-${n++}`);
    mkdirSync(dir);
    vi.stubEnv("TARGETS_DIR", dir);
    vi.stubEnv("ENGINE_RUNTIME", runtime);
    resetEnvForTests();
    return dir;
  };
  const bytes = (dir: string) => readFileSync(join(dir, TOKENIZER_FILE));

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), "arena-targets-"));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    resetEnvForTests();
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("is made on the simulated runtime with Qwen3's tokenizer files, and a note of the size it stands for", async () => {
    targets("sim");
    const dir = await targetDir("qwen3-8b");
    expect(bytes(dir).equals(bytes(qwen3TokenizerDir()))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, "arena-target.json"), "utf8"))).toMatchObject({ simulated: true });
  });

  it("is made whole for evaluations that fetch at once: none finds it half copied", async () => {
    targets("sim");
    // staggered, as workers' fetches are: a later one comes while an earlier one is copying
    const made = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => new Promise((r) => setTimeout(r, i * 2)).then(() => targetDir("qwen3-8b"))),
    );
    expect(made.filter((m) => m.status === "rejected")).toEqual([]);
    const dir = (made[0] as PromiseFulfilledResult<string>).value;
    expect(bytes(dir).equals(bytes(qwen3TokenizerDir()))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, "arena-target.json"), "utf8"))).toMatchObject({ simulated: true });
  });

  it("keeps, on the simulated runtime, a tokenizer a test put there", async () => {
    const root = targets("sim");
    cpSync(FIXTURE_TOKENIZER_DIR, join(root, "qwen35-27b"), { recursive: true });
    const dir = await targetDir("qwen35-27b");
    expect(bytes(dir).equals(bytes(FIXTURE_TOKENIZER_DIR))).toBe(true);
    expect(existsSync(join(dir, "chat_template.jinja"))).toBe(true);
    expect(existsSync(join(dir, "arena-target.json"))).toBe(true);
  });

  it("must hold the tokenizer files on the vLLM runtime, or the error names what it lacks", async () => {
    const root = targets("vllm");
    mkdirSync(join(root, "qwen35-27b"));
    await expect(targetDir("qwen35-27b")).rejects.toThrow(
      `the target of qwen35-27b cannot be judged: the tokenizer directory ${join(root, "qwen35-27b")} has no tokenizer.json`,
    );
    cpSync(FIXTURE_TOKENIZER_DIR, join(root, "qwen3-8b"), { recursive: true });
    rmSync(join(root, "qwen3-8b", "chat_template.jinja"));
    await expect(targetDir("qwen3-8b")).rejects.toThrow(/has no chat template/);
    cpSync(FIXTURE_TOKENIZER_DIR, join(root, "qwen3-8b"), { recursive: true });
    expect(await targetDir("qwen3-8b")).toBe(join(root, "qwen3-8b"));
    // nothing is written into an operator's target
    expect(existsSync(join(root, "qwen3-8b", "arena-target.json"))).toBe(false);
  });
});
