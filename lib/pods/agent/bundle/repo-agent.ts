import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JUDGE_NODE_FLAGS } from "@/lib/judge/run/node-flags";
import { AGENT_BUNDLE_ENTRY, REPO_AGENT_BUNDLE } from "./bundle-layout";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export interface AgentCommand {
  command: string;
  args: string[];
}

/** Whether some file under `dir` changed after `mtimeMs`; stops at the first. */
function changedAfter(dir: string, mtimeMs: number): boolean {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (changedAfter(path, mtimeMs)) return true;
    } else if (statSync(path).mtimeMs > mtimeMs) return true;
  }
  return false;
}

/** The repository's agent bundle when no file under lib/ nor package-lock.json is newer than it; else null. */
export function freshRepoAgentBundle(root = REPO_ROOT): string | null {
  const entry = join(root, REPO_AGENT_BUNDLE, AGENT_BUNDLE_ENTRY);
  if (!existsSync(entry)) return null;
  const built = statSync(entry).mtimeMs;
  const lock = join(root, "package-lock.json");
  if (existsSync(lock) && statSync(lock).mtimeMs > built) return null;
  return changedAfter(join(root, "lib"), built) ? null : entry;
}

/**
 * How a pod started from the repository runs its agent: the bundle `npm test` builds (build-agent-bundle.ts) while
 * it is fresh, else the sources through tsx, as after any edit; the two are the same code.
 */
export function repoAgentCommand(root = REPO_ROOT): AgentCommand {
  const bundle = freshRepoAgentBundle(root);
  return bundle
    ? { command: process.execPath, args: [...JUDGE_NODE_FLAGS, bundle] }
    : {
        command: process.execPath,
        args: [...JUDGE_NODE_FLAGS, "--import", "tsx", join(root, "lib/pods/agent/main.ts")],
      };
}
