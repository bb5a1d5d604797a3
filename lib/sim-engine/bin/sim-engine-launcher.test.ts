import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const LAUNCHER = fileURLToPath(new URL("./sim-engine", import.meta.url));
const NODE_MODULES = fileURLToPath(new URL("../../../node_modules", import.meta.url));

/**
 * The launcher in a repository of its own (its node_modules linked), whose sources and bundle each say which ran:
 * the real repository's bundle and sources are left alone while other tests start engines from them.
 */
let repo: string;
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
const ran = () => execFileSync(join(repo, "lib/sim-engine/bin/sim-engine"), ["serve"], { encoding: "utf8" }).trim();

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), "launcher-"));
  await mkdir(join(repo, "lib/sim-engine/bin"), { recursive: true });
  await mkdir(join(repo, ".build/sim-engine"), { recursive: true });
  await copyFile(LAUNCHER, join(repo, "lib/sim-engine/bin/sim-engine"));
  await symlink(NODE_MODULES, join(repo, "node_modules"));
  await writeFile(
    join(repo, "lib/sim-engine/cli.ts"),
    'console.log(["sources", ...process.argv.slice(2)].join(" "));\n',
  );
  await writeFile(join(repo, "package-lock.json"), "{}\n");
  await writeFile(
    join(repo, ".build/sim-engine/sim-engine.mjs"),
    'console.log(["bundle", ...process.argv.slice(2)].join(" "));\n',
  );
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

async function ages(sources: number, lock: number, bundle: number) {
  for (const file of ["lib/sim-engine/cli.ts", "lib/sim-engine/bin/sim-engine"]) {
    await utimes(join(repo, file), at(sources), at(sources));
  }
  await utimes(join(repo, "lib/sim-engine/bin"), at(sources), at(sources));
  await utimes(join(repo, "lib/sim-engine"), at(sources), at(sources));
  await utimes(join(repo, "lib"), at(sources), at(sources));
  await utimes(join(repo, "package-lock.json"), at(lock), at(lock));
  await utimes(join(repo, ".build/sim-engine/sim-engine.mjs"), at(bundle), at(bundle));
}

describe("the simulated engine's launcher", () => {
  it("runs the repository's bundle while nothing under lib/ and no package-lock.json is newer, with the arguments", async () => {
    await ages(1, 1, 2);
    expect(ran()).toBe("bundle serve");
  });

  it("runs the sources through tsx once a file under lib/ or the lock file is newer than the bundle", async () => {
    await ages(3, 1, 2);
    expect(ran()).toBe("sources serve");
    await ages(1, 3, 2);
    expect(ran()).toBe("sources serve");
  });

  it("runs the sources when there is no bundle", async () => {
    await rm(join(repo, ".build"), { recursive: true });
    expect(ran()).toBe("sources serve");
  });
});
