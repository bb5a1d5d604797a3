import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JUDGE_NODE_FLAGS } from "@/lib/judge/run/node-flags";
import { AGENT_BUNDLE_ENTRY, REPO_AGENT_BUNDLE } from "./bundle-layout";
import { freshBundle } from "./fresh-bundle.mjs";

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export interface AgentCommand {
  command: string;
  args: string[];
}

/** The repository's agent bundle when no file under lib/ nor package-lock.json is newer than it; else null. */
export function freshRepoAgentBundle(root = REPO_ROOT): string | null {
  return freshBundle(root, join(root, REPO_AGENT_BUNDLE, AGENT_BUNDLE_ENTRY));
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
