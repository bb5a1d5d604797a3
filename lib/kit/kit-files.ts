import { spawn } from "node:child_process";
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { CLIENT_VERSION } from "../client/versions";
import { env } from "../env";

/**
 * Where the web app finds the repository: it runs from it (`next start`'s working directory, as `npm run arena`
 * and the web image start it), and its bundled code has no path of its own to go by.
 */
const appRoot = () => process.cwd();

/** The Python client as the arena serves it at /client.py: the repository's file, which carries its version. */
export async function pythonClient(): Promise<string> {
  return readFile(join(/*turbopackIgnore: true*/ appRoot(), "kit/speculatorarena/client.py"), "utf8");
}

/** The served kit's place: one archive per arena release and protocol version, built once. */
export function kitArchivePath(): string {
  return join(
    resolve(/*turbopackIgnore: true*/ appRoot(), env().ARENA_DATA_DIR),
    "kit",
    `speculatorarena-kit-${CLIENT_VERSION}.tar.gz`,
  );
}

let building: Promise<void> | undefined;

/**
 * The kit's archive, built on first request (lib/kit/build-kit.ts in a child process, so esbuild stays out of the web
 * app) and kept for every later one; concurrent requests wait for the same build.
 */
export async function kitArchive(): Promise<{ path: string; size: number }> {
  const path = kitArchivePath();
  const existing = await stat(path).catch(() => null);
  if (existing) return { path, size: existing.size };
  building ??= buildArchive(path).finally(() => {
    building = undefined;
  });
  await building;
  return { path, size: (await stat(path)).size };
}

function buildArchive(path: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(
      join(/*turbopackIgnore: true*/ appRoot(), "node_modules/.bin/tsx"),
      [join(/*turbopackIgnore: true*/ appRoot(), "lib/kit/build-kit.ts"), "--archive", path],
      { cwd: appRoot(), stdio: ["ignore", "ignore", "pipe"] },
    );
    const errors: string[] = [];
    child.stderr.on("data", (chunk: Buffer) => errors.push(chunk.toString()));
    child.on("error", fail);
    child.on("close", (code) =>
      code === 0 ? done() : fail(new Error(`building the kit exited ${code}: ${errors.join("").slice(-2000)}`)),
    );
  });
}
