import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_BUNDLE_ENTRY, REPO_AGENT_BUNDLE } from "./bundle-layout";
import { freshRepoAgentBundle, repoAgentCommand } from "./repo-agent";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A repository's shape: a source deep under lib/, the lock file, and a bundle built at `builtAt` (seconds). */
function repo(builtAt: number | null): { root: string; source: string; lock: string; entry: string } {
  const root = mkdtempSync(join(tmpdir(), "repo-agent-"));
  roots.push(root);
  const source = join(root, "lib/pods/agent/main.ts");
  mkdirSync(join(root, "lib/pods/agent"), { recursive: true });
  writeFileSync(source, "");
  const lock = join(root, "package-lock.json");
  writeFileSync(lock, "{}");
  for (const path of [source, lock]) utimesSync(path, 1_000, 1_000);
  const entry = join(root, REPO_AGENT_BUNDLE, AGENT_BUNDLE_ENTRY);
  if (builtAt !== null) {
    mkdirSync(join(root, REPO_AGENT_BUNDLE), { recursive: true });
    writeFileSync(entry, "");
    utimesSync(entry, builtAt, builtAt);
  }
  return { root, source, lock, entry };
}

describe("the repository's pod agent", () => {
  it("runs the bundle while nothing under lib/ nor the lock file is newer than it", () => {
    const r = repo(2_000);
    expect(freshRepoAgentBundle(r.root)).toBe(r.entry);
    const command = repoAgentCommand(r.root);
    expect(command.command).toBe(process.execPath);
    expect(command.args.at(-1)).toBe(r.entry);
    expect(command.args).not.toContain("tsx");
  });

  it("runs the sources through tsx once a file deep under lib/ is edited after the build", () => {
    const r = repo(2_000);
    utimesSync(r.source, 3_000, 3_000);
    expect(freshRepoAgentBundle(r.root)).toBeNull();
    expect(repoAgentCommand(r.root).args.slice(-3)).toEqual(["--import", "tsx", r.source]);
  });

  it("runs the sources after a new lock file, and when there is no bundle", () => {
    const r = repo(2_000);
    utimesSync(r.lock, 3_000, 3_000);
    expect(freshRepoAgentBundle(r.root)).toBeNull();
    const none = repo(null);
    expect(freshRepoAgentBundle(none.root)).toBeNull();
    expect(repoAgentCommand(none.root).args.slice(-3)).toEqual(["--import", "tsx", none.source]);
  });
});
