// Which module the repository's `speculatorarena` bin runs (plain JavaScript: it decides before tsx is loaded).
import { join } from "node:path";
import { freshBundle } from "../../pods/agent/bundle/fresh-bundle.mjs";

/** The repository's bundled CLI, relative to it; `npm test` builds it (lib/kit/repo-client-bundle.ts). */
export const REPO_CLIENT_BUNDLE = ".build/client/speculatorarena.mjs";

/**
 * The bundle for every verb but `local` while no file under lib/ nor package-lock.json is newer than it, else null
 * (the sources, through tsx). `local` always runs the sources: it finds the pod agent, the engines and the data beside
 * its own modules (kit-layout.ts), and the repository's bundle has none of them beside it.
 */
export function bundledClientEntry(root, verb) {
  return verb === "local" ? null : freshBundle(root, join(root, REPO_CLIENT_BUNDLE));
}
