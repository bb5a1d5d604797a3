import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * esbuild's options for one ES module of the repository that runs on Node 20 with no node_modules beside it: the pod
 * agent and the simulated engine, the kit's client, the image's server commands.
 */
export const NODE_BUNDLE_OPTIONS = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  absWorkingDir: REPO_ROOT,
  tsconfig: join(REPO_ROOT, "tsconfig.json"),
  logLevel: "warning",
  legalComments: "linked",
  // bundled CommonJS modules (undici's, ioredis', pg's, the tokenizers') call require for Node's own modules
  banner: {
    js: 'import { createRequire as __arenaRequire } from "node:module"; const require = __arenaRequire(import.meta.url);',
  },
} as const;
