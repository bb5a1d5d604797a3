import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_CLIENT_BUNDLE as BUILT_AT } from "../../kit/repo-client-bundle";
import { bundledClientEntry, REPO_CLIENT_BUNDLE } from "./client-entry.mjs";

const BIN = fileURLToPath(new URL("./speculatorarena.mjs", import.meta.url));
const roots: string[] = [];

/** A repository's outline: lib/ with one module, package-lock.json, and the bundle, each at the given second. */
function repo(at: { lib: number; lock: number; bundle?: number }): string {
  const root = mkdtempSync(join(tmpdir(), "client-entry-"));
  roots.push(root);
  const touch = (path: string, second: number) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), "");
    utimesSync(join(root, path), second, second);
  };
  touch("lib/client/cli.ts", at.lib);
  touch("package-lock.json", at.lock);
  if (at.bundle !== undefined) touch(REPO_CLIENT_BUNDLE, at.bundle);
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("the repository bin's entry", () => {
  it("is the bundle the builder writes, for every verb but local, while nothing it was built from is newer", () => {
    expect(REPO_CLIENT_BUNDLE).toBe(BUILT_AT);
    const root = repo({ lib: 1_000, lock: 1_000, bundle: 2_000 });
    for (const verb of ["submit", "status", "watch", "budget", "board", "--help", undefined])
      expect(bundledClientEntry(root, verb)).toBe(join(root, REPO_CLIENT_BUNDLE));
    expect(bundledClientEntry(root, "local")).toBeNull();
  });

  it("is the sources when the bundle is missing, or a file under lib/ or the lock file is newer than it", () => {
    expect(bundledClientEntry(repo({ lib: 1_000, lock: 1_000 }), "status")).toBeNull();
    expect(bundledClientEntry(repo({ lib: 3_000, lock: 1_000, bundle: 2_000 }), "status")).toBeNull();
    expect(bundledClientEntry(repo({ lib: 1_000, lock: 3_000, bundle: 2_000 }), "status")).toBeNull();
  });

  it("runs the CLI either way: the bin's usage, and bad arguments exit 2", () => {
    const usage = execFileSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
    expect(usage).toMatch(/^usage: speculatorarena <command>/);
    expect(() => execFileSync(process.execPath, [BIN, "deploy"], { stdio: "pipe" })).toThrow(
      expect.objectContaining({ status: 2 }),
    );
  });
});
