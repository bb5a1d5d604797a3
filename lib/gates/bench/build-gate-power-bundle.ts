/**
 * The gates' power benchmark as one ES module that runs with no node_modules and no repository (`node gate-power.mjs
 * ...`), with the files its code reads beside itself: the toy target's corpus and its encoded ids, Qwen3's tokenizer
 * files, the dev pool (for the fixed texts and probes). pack-device-gate-power.sh packs it with a Node binary.
 * Usage: npx tsx lib/gates/bench/build-gate-power-bundle.ts DIR
 */
import { copyFile, mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { copySimEngineCorpus } from "@/lib/pods/agent/bundle/build-agent-bundle";
import { NODE_BUNDLE_OPTIONS } from "@/lib/pods/agent/bundle/node-bundle-options";
import { BUNDLED_TOKENIZER_DIR, copyQwen3TokenizerFiles } from "@/lib/tokenizer/packaged-qwen3";

const GATE_POWER_MODULE = "gate-power.mjs";

async function buildGatePowerBundle(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, "data"), { recursive: true });
  await build({
    ...NODE_BUNDLE_OPTIONS,
    entryPoints: ["lib/gates/bench/gate-power.ts"],
    outfile: join(dir, GATE_POWER_MODULE),
  });
  // bundled, every `new URL("./file", import.meta.url)` and DEV_POOL_PATH (`data/dev.jsonl` beside the module that
  // names it) resolve beside the one module
  await copySimEngineCorpus(dir);
  await copyQwen3TokenizerFiles(join(dir, BUNDLED_TOKENIZER_DIR));
  await copyFile(DEV_POOL_PATH, join(dir, "data", "dev.jsonl"));
}

const out = process.argv[2];
if (!out) {
  console.error("usage: npx tsx lib/gates/bench/build-gate-power-bundle.ts DIR");
  process.exit(2);
}
await buildGatePowerBundle(resolve(out));
console.log(`gate-power bundle: ${resolve(out)} (run: node ${join(resolve(out), GATE_POWER_MODULE)} ...)`);
