import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectEngineArchive } from "../engine-archive/inspect-archive";
import { DEFAULT_ARCHIVE_LIMITS, packEngineDirectory } from "./engine-directory";
import { ClientError, EXIT } from "./exit-codes";

let base: string;
let n = 0;
const LAUNCH = '#!/usr/bin/env bash\ncase "$1" in serve) exec true;; esac\n';

/** A fresh engine directory with an executable launch.sh and a plugin folder. */
async function engine(): Promise<string> {
  const dir = join(base, `engine-${n++}`);
  await mkdir(join(dir, "plugin"), { recursive: true });
  await writeFile(join(dir, "launch.sh"), LAUNCH, { mode: 0o755 });
  await writeFile(join(dir, "plugin", "sim-plugin.json"), "{}");
  return dir;
}

async function refusal(dir: string): Promise<ClientError> {
  const error = await packEngineDirectory(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientError);
  expect((error as ClientError).exitCode).toBe(EXIT.engineRefused);
  return error as ClientError;
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "engine-directory-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("packing an engine directory as the arena reads it", () => {
  it("packs files and folders, what a link inside points to in its place, and passes the arena's inspection", async () => {
    const dir = await engine();
    await symlink("plugin/sim-plugin.json", join(dir, "config-link.json"));
    await symlink("plugin", join(dir, "plugin-link"));
    const packed = await packEngineDirectory(dir);
    const inspected = await inspectEngineArchive(packed.gz, DEFAULT_ARCHIVE_LIMITS);
    expect(inspected.files.map((f) => f.path).sort()).toEqual([
      "config-link.json",
      "launch.sh",
      "plugin-link/sim-plugin.json",
      "plugin/sim-plugin.json",
    ]);
    expect(inspected.files.find((f) => f.path === "launch.sh")!.mode & 0o100).toBe(0o100);
    expect(Buffer.from(packed.inline, "base64").equals(packed.gz)).toBe(true);
    expect(packed).toMatchObject({ files: 4, sha256: inspected.sha256 });
  });

  it("refuses a directory without launch.sh, naming what the arena runs", async () => {
    const dir = await engine();
    await rm(join(dir, "launch.sh"));
    expect((await refusal(dir)).message).toBe(
      `engine directory ${dir}: has no launch.sh at its top: the arena runs \`launch.sh serve\` from the engine directory`,
    );
  });

  it("refuses a launch.sh that is not executable, or is a folder", async () => {
    const dir = await engine();
    await chmod(join(dir, "launch.sh"), 0o644);
    expect((await refusal(dir)).message).toMatch(/launch\.sh is not executable: run chmod \+x .*launch\.sh$/);
    await rm(join(dir, "launch.sh"));
    await mkdir(join(dir, "launch.sh"));
    expect((await refusal(dir)).message).toMatch(/launch\.sh is a folder: it must be a file$/);
  });

  it("refuses a link leaving the directory, a broken one, and one that loops", async () => {
    const outside = join(base, "secret.txt");
    await writeFile(outside, "not the engine's");
    const leaving = await engine();
    await symlink(outside, join(leaving, "weights.bin"));
    expect((await refusal(leaving)).message).toContain(`"weights.bin" is a link to ${outside}, outside the directory`);
    const broken = await engine();
    await symlink("nowhere", join(broken, "gone"));
    expect((await refusal(broken)).message).toContain('"gone" is a broken link');
    const loop = await engine();
    await symlink("..", join(loop, "plugin", "up"));
    expect((await refusal(loop)).message).toContain('"plugin/up" is a link to a folder that holds it (a loop)');
  });

  it("refuses what is neither a file nor a folder", async () => {
    const dir = await engine();
    execFileSync("mkfifo", [join(dir, "pipe")]);
    expect((await refusal(dir)).message).toContain('"pipe" is neither a file nor a folder');
  });

  it("refuses a directory that packs to more than the protocol's inline characters", async () => {
    const dir = await engine();
    await writeFile(join(dir, "blob.bin"), randomBytes(2_200_000));
    expect((await refusal(dir)).message).toMatch(
      /packs to 2,9\d\d,\d\d\d base64 characters, more than the 2,800,000 an inline engine may have/,
    );
  });

  it("refuses a path that does not exist or is not a directory", async () => {
    expect((await refusal(join(base, "missing"))).message).toContain("does not exist");
    const file = join(base, "a-file");
    await writeFile(file, "x");
    expect((await refusal(file)).message).toContain("is not a directory");
  });
});
