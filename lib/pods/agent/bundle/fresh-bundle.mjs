// Plain JavaScript: the repository's `speculatorarena` bin asks it before tsx is loaded (lib/client/bin/client-entry.mjs).
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Whether some file under `dir` changed after `mtimeMs`; stops at the first. */
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
 * `bundle` (a file the repository at `root` built from its sources) when no file under lib/ nor package-lock.json is
 * newer than it; else null, as after any edit: the sources then run through tsx.
 */
export function freshBundle(root, bundle) {
  if (!existsSync(bundle)) return null;
  const built = statSync(bundle).mtimeMs;
  const lock = join(root, "package-lock.json");
  if (existsSync(lock) && statSync(lock).mtimeMs > built) return null;
  return changedAfter(join(root, "lib"), built) ? null : bundle;
}
