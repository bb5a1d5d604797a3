// Which module the repository's `speculatorarena` bin runs (plain JavaScript: it decides before tsx is loaded).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The repository's bundled CLI, relative to it; `npm test` builds it (lib/kit/repo-client-bundle.ts). */
export const REPO_CLIENT_BUNDLE = ".build/client/speculatorarena.mjs";

function changedAfter(dir, mtimeMs) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (changedAfter(path, mtimeMs)) return true;
    } else if (statSync(path).mtimeMs > mtimeMs) return true;
  }
  return false;
}

/**
 * The bundle for every verb but `local` while no file under lib/ nor package-lock.json is newer than it, else null
 * (the sources, through tsx). `local` always runs the sources: it finds the pod agent, the engines and the data beside
 * its own modules (kit-layout.ts), and the repository's bundle has none of them beside it.
 */
export function bundledClientEntry(root, verb) {
  if (verb === "local") return null;
  const bundle = join(root, REPO_CLIENT_BUNDLE);
  if (!existsSync(bundle)) return null;
  const built = statSync(bundle).mtimeMs;
  const lock = join(root, "package-lock.json");
  if (existsSync(lock) && statSync(lock).mtimeMs > built) return null;
  return changedAfter(join(root, "lib"), built) ? null : bundle;
}
