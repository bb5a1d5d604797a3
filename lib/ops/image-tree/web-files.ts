import { access, cp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLIENT_VERSION } from "../../client/versions";
import { buildKitArchive } from "../../kit/build-kit";
import { runStep } from "../processes";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const STANDALONE = join(REPO_ROOT, ".next/standalone");

/** Folders the web app and the worker read from their working directory at run time (/app in the image). */
const RUNTIME_FOLDERS = [
  // the engine directories an operator's reference run packs (lib/admin/run-reference.ts)
  "lib/sim-engine/engines",
  "lib/pods/reference-engines/vllm",
  // the stock engine, which the worker's init container copies onto the storage volume
  "lib/pods/stock-engines/vllm",
  // the Python client /client.py serves
  "kit/speculatorarena",
];

/** `next build`, which writes `.next/standalone` (next.config.ts: output "standalone"). */
export async function runNextBuild(): Promise<void> {
  await runStep(join(REPO_ROOT, "node_modules/.bin/next"), ["build"], {
    cwd: REPO_ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
}

export async function hasStandaloneBuild(): Promise<boolean> {
  return access(join(STANDALONE, "server.js")).then(
    () => true,
    () => false,
  );
}

/**
 * The web app as Next's standalone output lays it out, in `app` (the image's /app): `server.js` with the modules it
 * traced, the static assets and public/ beside it (`next build` leaves those for the image to copy), the folders it
 * reads at run time, and the participant's kit prebuilt where the web app looks for it first (a kit built on the
 * first request would need the repository and its node_modules, which the image does not hold).
 */
export async function writeWebFiles(app: string): Promise<void> {
  if (!(await hasStandaloneBuild())) throw new Error(`${STANDALONE} is missing: run next build first`);
  await cp(STANDALONE, app, { recursive: true, verbatimSymlinks: true });
  await cp(join(REPO_ROOT, ".next/static"), join(app, ".next/static"), { recursive: true });
  await cp(join(REPO_ROOT, "public"), join(app, "public"), { recursive: true });
  for (const folder of RUNTIME_FOLDERS) await cp(join(REPO_ROOT, folder), join(app, folder), { recursive: true });
  // lib/kit/kit-files.ts: <working directory>/<ARENA_DATA_DIR, default .arena/data>/kit/<archive>
  await buildKitArchive(join(app, ".arena/data/kit", `speculatorarena-kit-${CLIENT_VERSION}.tar.gz`), { node: "copy" });
}
