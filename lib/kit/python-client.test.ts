import { execFileSync, spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json";
import { DEFAULT_ARCHIVE_LIMITS, packEngineDirectory } from "../client/engine-directory";
import { EXIT } from "../client/exit-codes";
import { inspectEngineArchive, MAX_NAME_BYTES, MAX_PATH_BYTES } from "../engine-archive/inspect-archive";
import { EventStreamParser } from "../http/sse-reader";
import { currentProtocol, SOLUTION_KINDS, SPLITS, TASK_IDS } from "../protocol";
import { TOKEN_PREFIX } from "../tokens/token-format";

// The Python client (kit/speculatorarena/client.py) beside the TypeScript code it mirrors: its constants are the
// arena's and the protocol's, it packs and refuses engine directories as the TypeScript client does (and the arena's
// own inspection accepts what it packs), and it parses the event stream as the shared reader does.

const KIT = fileURLToPath(new URL("../../kit/", import.meta.url));
const CLIENT = join(KIT, "speculatorarena", "client.py");
/** The interpreters to check it under: the machine's python3, and 3.9 (the oldest it supports) where installed. */
const PYTHONS = ["python3", "python3.9"].filter((p) => spawnSync(p, ["--version"], { stdio: "ignore" }).status === 0);

function python(code: string, args: string[] = [], interpreter = "python3"): { status: number; out: string } {
  const r = spawnSync(interpreter, ["-c", code, ...args], { cwd: KIT, encoding: "utf8" });
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "python-client-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("the Python client", () => {
  it("is Python 3.9 syntax, standard library only", () => {
    const check = python(
      `import ast, sys
src = open(sys.argv[1]).read()
tree = ast.parse(src, feature_version=(3, 9))
mods = {n.names[0].name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)}
mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and n.level == 0}
print(sorted(m for m in mods if m not in sys.stdlib_module_names))`,
      [CLIENT],
    );
    expect(check).toEqual({ status: 0, out: "[]\n" });
    expect(PYTHONS).toContain("python3");
  });

  it("carries the arena's version, the protocol's and its limits", () => {
    const { status, out } = python(`import json, speculatorarena.client as c
print(json.dumps({k: getattr(c, k) for k in ["__version__", "PROTOCOL_VERSION", "CLIENT_VERSION", "TASKS", "SPLITS",
  "KINDS", "PROFILES", "PROFILE_PASSES", "METHOD_MAX_CHARS", "INLINE_MAX_CHARS", "MAX_UNPACKED_BYTES", "MAX_FILES",
  "MAX_NAME_BYTES", "MAX_PATH_BYTES", "TOKEN_PREFIX", "EXIT_OK", "EXIT_NOT_SCORED", "EXIT_USAGE", "EXIT_ENGINE",
  "EXIT_REFUSED", "EXIT_UNREACHABLE"]}))`);
    expect(status).toBe(0);
    const protocol = currentProtocol();
    expect(JSON.parse(out)).toEqual({
      __version__: packageJson.version,
      PROTOCOL_VERSION: protocol.version,
      CLIENT_VERSION: `${packageJson.version}+protocol.${protocol.version}`,
      TASKS: [...TASK_IDS],
      SPLITS: [...SPLITS],
      KINDS: [...SOLUTION_KINDS],
      PROFILES: protocol.profiles.map((p) => p.name),
      PROFILE_PASSES: Object.fromEntries(protocol.profiles.map((p) => [p.name, p.passes])),
      METHOD_MAX_CHARS: protocol.submission.methodMaxChars,
      INLINE_MAX_CHARS: protocol.submission.engineInlineMaxChars,
      MAX_UNPACKED_BYTES: DEFAULT_ARCHIVE_LIMITS.maxUnpackedBytes,
      MAX_FILES: DEFAULT_ARCHIVE_LIMITS.maxFiles,
      MAX_NAME_BYTES,
      MAX_PATH_BYTES,
      TOKEN_PREFIX,
      EXIT_OK: EXIT.ok,
      EXIT_NOT_SCORED: EXIT.notScored,
      EXIT_USAGE: EXIT.usage,
      EXIT_ENGINE: EXIT.engineRefused,
      EXIT_REFUSED: EXIT.refused,
      EXIT_UNREACHABLE: EXIT.unreachable,
    });
  });

  it("packs an engine directory the arena accepts, with the files the TypeScript client packs", async () => {
    const dir = join(base, "engine");
    await mkdir(join(dir, "plugin", "deep"), { recursive: true });
    await writeFile(join(dir, "launch.sh"), '#!/usr/bin/env bash\nexec "$ARENA_SIM_ENGINE" serve --mode eagle\n', {
      mode: 0o755,
    });
    await writeFile(join(dir, "plugin", "deep", "ünïcode name.json"), "{}");
    await symlink("plugin/deep", join(dir, "linked"));
    for (const interpreter of PYTHONS) {
      const { status, out } = python(
        `import json, sys, speculatorarena.client as c
inline, files, size = c.pack_engine(sys.argv[1])
print(json.dumps({"inline": inline, "files": files, "size": size}))`,
        [dir],
        interpreter,
      );
      expect(status, out).toBe(0);
      const packed = JSON.parse(out) as { inline: string; files: number; size: number };
      const fromPython = await inspectEngineArchive(Buffer.from(packed.inline, "base64"), DEFAULT_ARCHIVE_LIMITS);
      const fromTs = await inspectEngineArchive((await packEngineDirectory(dir)).gz, DEFAULT_ARCHIVE_LIMITS);
      const shape = (i: typeof fromTs) => ({
        files: i.files.map((f) => [f.path, f.size, f.mode & 0o100]).sort(),
        directories: [...i.directories].sort(),
      });
      expect(shape(fromPython)).toEqual(shape(fromTs));
      expect(packed).toMatchObject({ files: 3, size: fromTs.unpackedBytes });
    }
  });

  it("refuses, before sending, what the TypeScript client refuses, with exit code 3 and the problem named", async () => {
    const cases: [string, (dir: string) => Promise<void>, RegExp][] = [
      ["no-launch", async (dir) => rm(join(dir, "launch.sh")), /has no launch\.sh at its top/],
      [
        "not-executable",
        async (dir) => chmod(join(dir, "launch.sh"), 0o644),
        /launch\.sh is not executable: run chmod \+x/,
      ],
      [
        "link-out",
        async (dir) => symlink("/etc/hostname", join(dir, "host")),
        /"host" is a link to .*, outside the directory/,
      ],
      [
        "fifo",
        async (dir) => void execFileSync("mkfifo", [join(dir, "pipe")]),
        /"pipe" is neither a file nor a folder/,
      ],
    ];
    for (const [name, spoil, message] of cases) {
      const dir = join(base, name);
      await mkdir(dir);
      await writeFile(join(dir, "launch.sh"), "#!/bin/sh\n", { mode: 0o755 });
      await spoil(dir);
      const { status, out } = python(
        `import sys, speculatorarena.client as c
try:
    c.pack_engine(sys.argv[1])
except c.ClientError as e:
    print(e.code, e)`,
        [dir],
      );
      expect(status).toBe(0);
      expect(out, name).toMatch(new RegExp(`^3 engine directory ${dir}: ${message.source}`));
      await expect(packEngineDirectory(dir), name).rejects.toThrow(message);
    }
  });

  it("parses the event stream as the shared reader does, whatever the chunks", () => {
    const stream = `\uFEFFretry: 1500\n\n: hb\n\nid: 1\nevent: status\ndata: {"status":"queued"}\n\nevent: state\r\ndata: {"a":\r\ndata: "ü ✓"}\r\n\r\nid: 2\revent: pass-ended\rdata: 1\r\rid: 3\ndata: cut`;
    const ts = new EventStreamParser().push(stream).map((m) => [m.id, m.event, m.data]);
    for (const size of [1, 3, 64]) {
      const { status, out } = python(
        `import json, sys, speculatorarena.client as c
data = sys.argv[1].encode("utf-8")
p = c.EventStreamParser()
events = []
for i in range(0, len(data), int(sys.argv[2])):
    events += p.push(data[i:i + int(sys.argv[2])])
events += p.push(b"", final=True)
print(json.dumps(events))`,
        [stream, String(size)],
      );
      expect(status, out).toBe(0);
      expect(JSON.parse(out), `chunks of ${size}`).toEqual(ts);
    }
  });
});
