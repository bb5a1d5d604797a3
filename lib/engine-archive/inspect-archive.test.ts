import { chmod, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { extractEngineArchive } from "./extract-archive";
import { inspectEngineArchive } from "./inspect-archive";
import { packDirectory } from "./pack-directory";
import { writeTar } from "./write-tar";

const launch = new TextEncoder().encode('#!/usr/bin/env bash\ncase "$1" in serve) exec true;; esac\n');
const gz = (inputs: Parameters<typeof writeTar>[0]) => gzipSync(writeTar(inputs));

describe("inspectEngineArchive", () => {
  it("accepts a directory packed by tar with launch.sh at its top, and extracts it executable", async () => {
    const dir = await mkdtemp(join(tmpdir(), "engine-"));
    await writeFile(join(dir, "launch.sh"), launch);
    await chmod(join(dir, "launch.sh"), 0o755);
    await writeFile(join(dir, "notes.txt"), "hello");
    const archive = await packDirectory(dir);
    const inspected = inspectEngineArchive(archive);
    expect(inspected.files.map((f) => f.path).sort()).toEqual(["launch.sh", "notes.txt"]);
    expect(inspected.sha256).toMatch(/^[0-9a-f]{64}$/);
    const dest = join(dir, "out");
    await extractEngineArchive(archive, dest);
    expect(await readFile(join(dest, "notes.txt"), "utf8")).toBe("hello");
    expect((await stat(join(dest, "launch.sh"))).mode & 0o100).toBe(0o100);
    await rm(dir, { recursive: true, force: true });
  });

  it("reads long paths written through pax headers", () => {
    const long = `${"deep/".repeat(30)}file.txt`;
    const inspected = inspectEngineArchive(
      gz([
        { path: "launch.sh", data: launch },
        { path: long, data: new Uint8Array(3) },
      ]),
    );
    expect(inspected.files.map((f) => f.path)).toContain(long);
  });

  it("refuses what is not a gzip", () => {
    expect(() => inspectEngineArchive(Buffer.from("plain text"))).toThrow(/not a gzip/);
  });

  it("refuses a gzip that holds no tar", () => {
    expect(() => inspectEngineArchive(gzipSync(Buffer.from("x".repeat(2000))))).toThrow(/not a tar archive/);
  });

  it("refuses an archive without launch.sh at its top", () => {
    expect(() => inspectEngineArchive(gz([{ path: "engine/launch.sh", data: launch }]))).toThrow(/no launch\.sh/);
  });

  it("refuses a path that escapes the directory, and an absolute one", () => {
    expect(() =>
      inspectEngineArchive(
        gz([
          { path: "launch.sh", data: launch },
          { path: "../evil.sh", data: launch },
        ]),
      ),
    ).toThrow(/escapes/);
    expect(() =>
      inspectEngineArchive(
        gz([
          { path: "launch.sh", data: launch },
          { path: "/etc/evil", data: launch },
        ]),
      ),
    ).toThrow(/absolute/);
  });

  it("refuses links, also when tar packed them from disk", async () => {
    expect(() =>
      inspectEngineArchive(
        gz([
          { path: "launch.sh", data: launch },
          { path: "target", type: "symlink", linkTarget: "/etc/passwd" },
        ]),
      ),
    ).toThrow(/link/);
    const dir = await mkdtemp(join(tmpdir(), "engine-"));
    await writeFile(join(dir, "launch.sh"), launch);
    await symlink("/etc/passwd", join(dir, "passwd"));
    await expect(packDirectory(dir).then(inspectEngineArchive)).rejects.toThrow(/link/);
    await rm(dir, { recursive: true, force: true });
  });
});
