import { chmod, copyFile, cp, mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { BUNDLED_TOKEN_WORKER } from "@/lib/judge/tokens/token-counter";
import { ENTER_ENGINE } from "@/lib/pods/sandbox/engine-command";
import { CORPUS_FILE, CORPUS_IDS_FILE } from "@/lib/sim-engine/model/corpus";
import { BUNDLED_TOKENIZER_DIR, copyQwen3TokenizerFiles, qwen3TokenizerDir } from "@/lib/tokenizer/packaged-qwen3";
import { readTokenizerFiles } from "@/lib/tokenizer/target-tokenizer";
import { REPO_TOKENIZER_CACHE, writeTokenizerCache } from "@/lib/tokenizer/tokenizer-cache";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

import {
  AGENT_BUNDLE_ENTRY,
  BUNDLED_SIM_ENGINE,
  REPO_AGENT_BUNDLE,
  REPO_SIM_ENGINE_BUNDLE,
  SIM_ENGINE_MODULE,
} from "./bundle-layout";
import { NODE_BUNDLE_OPTIONS } from "./node-bundle-options";

export { AGENT_BUNDLE_ENTRY, BUNDLED_SIM_ENGINE };

export interface AgentBundleOptions {
  /** The Node binary beside the code: a copy (an image, which needs it), a link to this one (tests), or none. */
  node: "copy" | "link" | "none";
  /**
   * Also bundle the simulated engine (`sim-engine/`: its launcher, module, corpus and engine directories), for pods
   * and drills that play simulated engines where there is no repository: a cluster without GPUs, a GPU host's drill.
   */
  simEngine?: boolean;
}

/**
 * Builds the pod agent as a directory that runs with no node_modules and no repository: the GPU pod's engine image
 * has neither (k8s/README.md). It holds the agent and its token worker as two ES modules, the public dev pool where
 * the bundled code looks for it beside itself, Qwen3's tokenizer files (a target directory for drills: the agent
 * itself counts with ARENA_TARGET_DIR's), and a Node binary.
 */
export async function buildAgentBundle(outDir: string, options: AgentBundleOptions): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  await build({
    ...NODE_BUNDLE_OPTIONS,
    entryPoints: ["lib/pods/agent/main.ts"],
    outfile: join(outDir, AGENT_BUNDLE_ENTRY),
  });
  await build({
    ...NODE_BUNDLE_OPTIONS,
    entryPoints: ["lib/judge/tokens/token-worker.ts"],
    outfile: join(outDir, BUNDLED_TOKEN_WORKER),
  });
  // the agent starts an engine inside its cgroup through this script, which it names beside its own module
  await copyFile(ENTER_ENGINE, join(outDir, basename(ENTER_ENGINE)));
  await copyQwen3TokenizerFiles(join(outDir, BUNDLED_TOKENIZER_DIR));
  // DEV_POOL_PATH is `data/dev.jsonl` beside the module that names it, which bundled is the entry point
  await mkdir(join(outDir, "data"));
  await copyFile(DEV_POOL_PATH, join(outDir, "data", "dev.jsonl"));
  if (options.simEngine) {
    const dir = join(outDir, "sim-engine");
    await buildSimEngineBundle(dir);
    await cp(join(REPO_ROOT, "lib/sim-engine/engines"), join(dir, "engines"), { recursive: true });
    await writeFile(
      join(outDir, BUNDLED_SIM_ENGINE),
      [
        "#!/usr/bin/env bash",
        "# The bundled simulated engine: lib/sim-engine/bin/sim-engine without the repository.",
        'here="$(cd "$(dirname "$(readlink -f "$0")")" && pwd)"',
        `exec "$here/../node" "$here/${SIM_ENGINE_MODULE}" "$@"`,
        "",
      ].join("\n"),
    );
    await chmod(join(outDir, BUNDLED_SIM_ENGINE), 0o755);
  }
  if (options.node === "copy") await copyFile(process.execPath, join(outDir, "node"));
  if (options.node === "link") await symlink(process.execPath, join(outDir, "node"));
}

/** The toy model's corpus and its encoded ids into `dir`, where a bundle that holds the toy model reads them. */
export async function copySimEngineCorpus(dir: string): Promise<void> {
  for (const file of [CORPUS_FILE, CORPUS_IDS_FILE]) {
    await copyFile(join(REPO_ROOT, "lib/sim-engine/model", file), join(dir, file));
  }
}

/** The simulated engine as one ES module, with the files it reads beside it (its corpus and the corpus' ids). */
export async function buildSimEngineBundle(dir: string): Promise<void> {
  await build({
    ...NODE_BUNDLE_OPTIONS,
    entryPoints: ["lib/sim-engine/cli.ts"],
    outfile: join(dir, SIM_ENGINE_MODULE),
  });
  // the toy model reads its corpus and its encoded ids beside the module that names them: bundled, sim-engine.mjs
  await copySimEngineCorpus(dir);
}

/**
 * The repository's own bundled simulated engine, which `lib/sim-engine/bin/sim-engine` runs while no file under lib/
 * (nor package-lock.json) is newer than it, and the sources through tsx otherwise: a start then loads one module
 * rather than transforming a hundred (0.8 s of CPU a start; each engine's TMPDIR is its own, so tsx's cache is cold).
 * Built aside and moved into place: an engine starting meanwhile runs the old bundle, or the sources.
 */
export async function buildRepoSimEngineBundle(): Promise<string> {
  const target = join(REPO_ROOT, REPO_SIM_ENGINE_BUNDLE);
  const staging = `${target}.${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await buildSimEngineBundle(staging);
  await rm(target, { recursive: true, force: true });
  await rename(staging, target);
  return target;
}

/**
 * The repository's own bundled pod agent, which local pods (and the red-team matrix) run while no file under lib/ (nor
 * package-lock.json) is newer than it, the sources through tsx otherwise (repo-agent.ts): a start then loads two
 * modules rather than transforming some three hundred through tsx's loader thread, in the agent and again in its
 * token worker (about 1.4 s of CPU an agent start). Built aside and moved into place, as the engine's is.
 */
export async function buildRepoAgentBundle(): Promise<string> {
  const target = join(REPO_ROOT, REPO_AGENT_BUNDLE);
  const staging = `${target}.${process.pid}`;
  await buildAgentBundle(staging, { node: "none" });
  await rm(target, { recursive: true, force: true });
  await rename(staging, target);
  return target;
}

/**
 * The packaged Qwen3 tokenizer's tables in the repository's tokenizer cache (`.build/tokenizer-cache`), which every
 * load of that tokenizer by the repository's code and bundles reads instead of rebuilding them (tokenizer-cache.ts):
 * the simulated targets', the engines' and the agents' in local pods.
 */
export async function buildRepoTokenizerCache(): Promise<string> {
  const dir = join(REPO_ROOT, REPO_TOKENIZER_CACHE);
  const files = readTokenizerFiles(qwen3TokenizerDir());
  writeTokenizerCache(dir, files.fingerprint, files.tokenizerJson);
  return dir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--out");
  const out = resolve(at > 0 ? process.argv[at + 1]! : join(REPO_ROOT, ".build/pod-agent"));
  await buildAgentBundle(out, { node: "copy", simEngine: process.argv.includes("--sim-engine") });
  console.log(`pod agent bundle: ${out} (run: ${join(out, "node")} ${join(out, AGENT_BUNDLE_ENTRY)})`);
}
