import { execFile } from "node:child_process";
import { chmod, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { extractEngineArchive } from "./extract-archive";
import { ArchiveError, inspectEngineArchive } from "./inspect-archive";
import { packDirectory } from "./pack-directory";
import { type TarInput, writeTar } from "./write-tar";

const run = promisify(execFile);

const launch = new TextEncoder().encode('#!/usr/bin/env bash\ncase "$1" in serve) exec true;; esac\n');
const gz = (inputs: Parameters<typeof writeTar>[0]) => gzipSync(writeTar(inputs));

describe("inspectEngineArchive", () => {
  it("accepts a directory packed by tar with launch.sh at its top, and extracts it executable", async () => {
    const dir = await mkdtemp(join(tmpdir(), "engine-"));
    await writeFile(join(dir, "launch.sh"), launch);
    await chmod(join(dir, "launch.sh"), 0o755);
    await writeFile(join(dir, "notes.txt"), "hello");
    const archive = await packDirectory(dir);
    const inspected = await inspectEngineArchive(archive);
    expect(inspected.files.map((f) => f.path).sort()).toEqual(["launch.sh", "notes.txt"]);
    expect(inspected.sha256).toMatch(/^[0-9a-f]{64}$/);
    const dest = join(dir, "out");
    await extractEngineArchive(archive, dest);
    expect(await readFile(join(dest, "notes.txt"), "utf8")).toBe("hello");
    expect((await stat(join(dest, "launch.sh"))).mode & 0o100).toBe(0o100);
    await rm(dir, { recursive: true, force: true });
  });

  it("reads long paths written through pax headers", async () => {
    const long = `${"deep/".repeat(30)}file.txt`;
    const inspected = await inspectEngineArchive(
      gz([
        { path: "launch.sh", data: launch },
        { path: long, data: new Uint8Array(3) },
      ]),
    );
    expect(inspected.files.map((f) => f.path)).toContain(long);
  });

  it("refuses what is not a gzip", async () => {
    await expect(inspectEngineArchive(Buffer.from("plain text"))).rejects.toThrow(/not a gzip/);
  });

  it("refuses a gzip that holds no tar", async () => {
    await expect(inspectEngineArchive(gzipSync(Buffer.from("x".repeat(2000))))).rejects.toThrow(/not a tar archive/);
  });

  it("refuses an archive without launch.sh at its top", async () => {
    await expect(inspectEngineArchive(gz([{ path: "engine/launch.sh", data: launch }]))).rejects.toThrow(
      /no launch\.sh/,
    );
  });

  it("refuses a path that escapes the directory, and an absolute one", async () => {
    await expect(
      inspectEngineArchive(
        gz([
          { path: "launch.sh", data: launch },
          { path: "../evil.sh", data: launch },
        ]),
      ),
    ).rejects.toThrow(/escapes/);
    await expect(
      inspectEngineArchive(
        gz([
          { path: "launch.sh", data: launch },
          { path: "/etc/evil", data: launch },
        ]),
      ),
    ).rejects.toThrow(/absolute/);
  });

  it("refuses links, also when tar packed them from disk", async () => {
    await expect(
      inspectEngineArchive(
        gz([
          { path: "launch.sh", data: launch },
          { path: "target", type: "symlink", linkTarget: "/etc/passwd" },
        ]),
      ),
    ).rejects.toThrow(/link/);
    const dir = await mkdtemp(join(tmpdir(), "engine-"));
    await writeFile(join(dir, "launch.sh"), launch);
    await symlink("/etc/passwd", join(dir, "passwd"));
    await expect(packDirectory(dir).then(inspectEngineArchive)).rejects.toThrow(/link/);
    await rm(dir, { recursive: true, force: true });
  });
});

describe("what extraction could not write is refused at inspection", () => {
  const refusals: [string, TarInput[], RegExp][] = [
    [
      "launch.sh as a file, then as a folder",
      [
        { path: "launch.sh", data: launch },
        { path: "launch.sh/", type: "directory" },
      ],
      /^holds "launch\.sh" both as a file and as a folder$/,
    ],
    [
      "launch.sh as a folder, then as a file (EISDIR when extracted)",
      [
        { path: "launch.sh/", type: "directory" },
        { path: "launch.sh", data: launch },
      ],
      /^holds "launch\.sh" both as a file and as a folder$/,
    ],
    [
      "a file inside launch.sh, which is also a file",
      [
        { path: "launch.sh", data: launch },
        { path: "launch.sh/x", data: launch },
      ],
      /^holds "launch\.sh\/x" inside "launch\.sh", which the archive also holds as a file$/,
    ],
    [
      "launch.sh only as a folder",
      [
        { path: "launch.sh/", type: "directory" },
        { path: "launch.sh/serve", data: launch },
      ],
      /^holds "launch\.sh" as a folder: it must be a file$/,
    ],
    [
      "a path named twice",
      [
        { path: "launch.sh", data: launch },
        { path: "conf.json", data: new Uint8Array(1) },
        { path: "./conf.json", data: new Uint8Array(2) },
      ],
      /^holds "conf\.json" twice: each path may appear once$/,
    ],
    [
      "launch.sh named twice",
      [
        { path: "launch.sh", data: launch },
        { path: "launch.sh", data: new Uint8Array(0) },
      ],
      /^holds "launch\.sh" twice/,
    ],
    [
      "a name longer than the file system allows",
      [
        { path: "launch.sh", data: launch },
        { path: `${"n".repeat(256)}.txt`, data: launch },
      ],
      /^holds a name longer than 255 bytes/,
    ],
    [
      "a path longer than an evaluation's folder leaves room for",
      [
        { path: "launch.sh", data: launch },
        { path: `${"d".repeat(200)}/`.repeat(6), type: "directory" },
      ],
      /^holds a path longer than 1024 bytes/,
    ],
  ];

  it.each(refusals)("refuses %s, naming what is wrong", async (_name, inputs, message) => {
    const archive = gz(inputs);
    await expect(inspectEngineArchive(archive)).rejects.toThrow(ArchiveError);
    await expect(inspectEngineArchive(archive)).rejects.toThrow(message);
    const dir = await mkdtemp(join(tmpdir(), "engine-"));
    await expect(extractEngineArchive(archive, join(dir, "out"))).rejects.toThrow(ArchiveError);
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses a file tar appended a second time (tar -r), as GNU tar writes it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "engine-"));
    await writeFile(join(dir, "launch.sh"), launch);
    await run("tar", ["-C", dir, "-cf", join(dir, "engine.tar"), "launch.sh"]);
    await writeFile(join(dir, "launch.sh"), "#!/usr/bin/env bash\nexit 1\n");
    await run("tar", ["-C", dir, "-rf", join(dir, "engine.tar"), "launch.sh"]);
    const archive = gzipSync(await readFile(join(dir, "engine.tar")));
    await expect(inspectEngineArchive(archive)).rejects.toThrow(/^holds "launch\.sh" twice/);
    await rm(dir, { recursive: true, force: true });
  });

  it("takes a folder named twice as one folder, and extracts it", async () => {
    const archive = gz([
      { path: "lib/", type: "directory" },
      { path: "launch.sh", data: launch, mode: 0o755 },
      { path: "./lib/", type: "directory" },
      { path: "lib/a.py", data: new Uint8Array(3) },
    ]);
    expect((await inspectEngineArchive(archive)).directories).toEqual(["lib"]);
    const dir = await mkdtemp(join(tmpdir(), "engine-"));
    await extractEngineArchive(archive, join(dir, "out"));
    expect((await readdir(join(dir, "out"), { recursive: true })).sort()).toEqual(["launch.sh", "lib", "lib/a.py"]);
    await rm(dir, { recursive: true, force: true });
  });

  it("extracts every archive it passes, exactly as planned: 400 random archives of clashing paths", async () => {
    // a small alphabet of names makes clashes (file over folder, folder over file, the same path twice) frequent
    let state = 20261201;
    const random = (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
    const names = ["launch.sh", "a", "b", "a/b", "a/launch.sh", "./a", "b/c/d", "launch.sh/x"];
    const base = await mkdtemp(join(tmpdir(), "engine-fuzz-"));
    let passed = 0;
    for (let i = 0; i < 400; i++) {
      const inputs: TarInput[] = [];
      for (let k = 0, n = 1 + random(6); k < n; k++) {
        const path = names[random(names.length)]!;
        inputs.push(random(3) === 0 ? { path: `${path}/`, type: "directory" } : { path, data: new Uint8Array([k]) });
      }
      const archive = gz(inputs);
      let plan: Awaited<ReturnType<typeof inspectEngineArchive>>;
      try {
        plan = await inspectEngineArchive(archive);
      } catch (error) {
        expect(error).toBeInstanceOf(ArchiveError);
        continue;
      }
      passed += 1;
      const dest = join(base, `out-${i}`);
      await extractEngineArchive(archive, dest);
      const written = (await readdir(dest, { recursive: true })).sort();
      expect(written).toEqual([...plan.directories, ...plan.files.map((f) => f.path)].sort());
      expect((await stat(join(dest, "launch.sh"))).isFile()).toBe(true);
    }
    expect(passed).toBeGreaterThan(20);
    await rm(base, { recursive: true, force: true });
  });
});
