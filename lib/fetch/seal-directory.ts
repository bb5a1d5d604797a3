import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { chmod, readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";

export interface SealedFile {
  path: string;
  size: number;
  sha256: string;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/** The digest of a sealed directory: sha256 over its files' paths and digests, in path order. */
export function directoryDigest(files: readonly SealedFile[]): string {
  const hash = createHash("sha256");
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) hash.update(`${f.path}\0${f.sha256}\n`);
  return hash.digest("hex");
}

/**
 * Seals a directory before any engine code runs: every file read-only (executables keep their bit),
 * every directory read-only, and the digest of each file recorded.
 */
export async function sealDirectory(dir: string): Promise<{ files: SealedFile[]; digest: string }> {
  const files: SealedFile[] = [];
  for (const full of await walk(dir)) {
    const info = await stat(full);
    files.push({ path: relative(dir, full), size: info.size, sha256: await sha256File(full) });
    await chmod(full, info.mode & 0o100 ? 0o555 : 0o444);
  }
  const dirs = [dir];
  for (let i = 0; i < dirs.length; i++) {
    for (const entry of await readdir(dirs[i]!, { withFileTypes: true })) {
      if (entry.isDirectory()) dirs.push(join(dirs[i]!, entry.name));
    }
  }
  for (const d of dirs.reverse()) await chmod(d, 0o555);
  return { files, digest: directoryDigest(files) };
}
