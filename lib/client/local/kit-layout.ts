import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { JUDGE_NODE_FLAGS } from "../../judge/run/node-flags";
import { repoAgentCommand } from "../../pods/agent/bundle/repo-agent";
import { qwen3TokenizerDir } from "../../tokenizer/packaged-qwen3";

/** The local kit's bundled entry point's file name, beside the pod agent bundle (lib/kit/build-kit.ts writes it). */
export const KIT_CLI_ENTRY = "speculatorarena.mjs";
/** Where the bundle keeps the pinned vLLM's stock launch.sh. */
export const BUNDLED_VLLM_STOCK_DIR = "stock-engines/vllm";

/** Where the local kit finds the pod agent, the simulated engine and the stock engines. */
export interface KitLayout {
  kind: "bundle" | "repository";
  agent: { command: string; args: string[]; cwd: string };
  simEngine: string;
  simStockEngineDir: string;
  vllmStockEngineDir: string;
  /** Qwen3's tokenizer files, the simulated targets' (a directory to copy from). */
  tokenizerDir: string;
}

/**
 * The kit as it runs: bundled (the kit's `local/` folder, with its own Node, where this code is the bundled CLI) or
 * from the repository (`npx speculatorarena local`, the agent as the repository's local pods run it: repoAgentCommand). Bundled code finds everything
 * beside itself, as the pod agent bundle does.
 */
export function kitLayout(): KitLayout {
  const here = dirname(fileURLToPath(import.meta.url));
  if (existsSync(join(here, "pod-agent.mjs"))) {
    return {
      kind: "bundle",
      agent: { command: process.execPath, args: [...JUDGE_NODE_FLAGS, join(here, "pod-agent.mjs")], cwd: here },
      simEngine: join(here, "sim-engine", "sim-engine"),
      simStockEngineDir: join(here, "sim-engine", "engines", "stock"),
      vllmStockEngineDir: join(here, BUNDLED_VLLM_STOCK_DIR),
      tokenizerDir: qwen3TokenizerDir(),
    };
  }
  const repo = join(here, "../../..");
  return {
    kind: "repository",
    agent: { ...repoAgentCommand(repo), cwd: repo },
    simEngine: join(repo, "lib/sim-engine/bin/sim-engine"),
    simStockEngineDir: join(repo, "lib/sim-engine/engines/stock"),
    vllmStockEngineDir: join(repo, "lib/pods/stock-engines/vllm"),
    tokenizerDir: qwen3TokenizerDir(),
  };
}
