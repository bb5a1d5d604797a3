import { mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writePodFiles } from "./pod-files";
import { writeServerBundles } from "./server-bundles";
import { hasStandaloneBuild, runNextBuild, writeWebFiles } from "./web-files";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface ImageTreeOptions {
  /** "run": `next build` first (the Dockerfile's build); "reuse": the standalone build there is, built when missing. */
  nextBuild: "run" | "reuse";
}

/**
 * The arena's image as a file tree under `out` (the image's `/`), made by the same steps the Dockerfile's build
 * stage runs (it runs this): `/app` holds the web app (Next's standalone server), the worker and the database
 * commands (one bundled module each), the migrations and the folders they read; `/opt/arena` holds what evaluation
 * pods take from the image (the pod agent bundle, the engine container's launcher). Nothing in it needs the
 * repository or a node_modules above it. The Prisma client must be generated first (`npm run db:generate`).
 */
export async function buildImageTree(out: string, options: ImageTreeOptions): Promise<void> {
  if (options.nextBuild === "run" || !(await hasStandaloneBuild())) await runNextBuild();
  await rm(out, { recursive: true, force: true });
  const app = join(out, "app");
  await mkdir(app, { recursive: true });
  await writeWebFiles(app);
  await writeServerBundles(app);
  await writePodFiles(out);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" }, "reuse-next-build": { type: "boolean" } } });
  const out = resolve(values.out ?? join(REPO_ROOT, ".build/image"));
  await buildImageTree(out, { nextBuild: values["reuse-next-build"] ? "reuse" : "run" });
  console.log(`the arena's image tree: ${out} (web: node app/server.js; worker: node app/bundles/worker/worker.mjs)`);
}
