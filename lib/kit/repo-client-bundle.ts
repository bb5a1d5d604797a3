import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { NODE_BUNDLE_OPTIONS } from "@/lib/pods/agent/bundle/node-bundle-options";
import { REPO_CLIENT_BUNDLE } from "../client/bin/client-entry.mjs";

export { REPO_CLIENT_BUNDLE };

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The CLI as one ES module at `outfile`: the kit's (`local/speculatorarena.mjs`) and the repository's. */
export async function buildClientBundle(outfile: string): Promise<void> {
  await build({ ...NODE_BUNDLE_OPTIONS, entryPoints: ["lib/client/main.ts"], outfile });
}

/**
 * The repository's bundled CLI, which `lib/client/bin/speculatorarena.mjs` runs for every verb but `local` while it
 * is fresh (client-entry.mjs). Built aside and moved into place: a client starting meanwhile runs the sources.
 */
export async function buildRepoClientBundle(): Promise<string> {
  const target = join(REPO_ROOT, REPO_CLIENT_BUNDLE);
  const staging = `${target}.${process.pid}`;
  await buildClientBundle(staging);
  await rm(target, { force: true });
  await rename(staging, target);
  return target;
}
