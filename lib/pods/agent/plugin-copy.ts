import { chmod, chown, copyFile, lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join, relative } from "node:path";

/** Why a `plugin/` cannot be copied: the submission's fault, told in the installer's words. */
export class PluginCopyError extends Error {}

/**
 * Copies the sealed `plugin/` into a writable directory the engine user owns (pip may build in its source
 * tree). Only directories and regular files are copied: a link could make the agent, which may be root,
 * read what the engine user may not, so links and special files are refused, as in engine archives.
 */
export async function copyPluginTree(
  source: string,
  destination: string,
  owner: { uid: number | null; gid: number | null },
): Promise<number> {
  await rm(destination, { recursive: true, force: true });
  let files = 0;
  const walk = async (from: string, to: string) => {
    await mkdir(to, { mode: 0o755 });
    if (owner.uid !== null) await chown(to, owner.uid, owner.gid!);
    for (const name of (await readdir(from)).sort()) {
      const path = join(from, name);
      const info = await lstat(path);
      const shown = `plugin/${relative(source, path)}`;
      if (info.isDirectory()) await walk(path, join(to, name));
      else if (info.isFile()) {
        const target = join(to, name);
        await copyFile(path, target);
        // the owner may write (pip rewrites in place); group and others keep what the participant gave
        await chmod(target, (info.mode & 0o755) | 0o600);
        if (owner.uid !== null) await chown(target, owner.uid, owner.gid!);
        files += 1;
      } else if (info.isSymbolicLink()) throw new PluginCopyError(`${shown} is a link; links are not allowed`);
      else throw new PluginCopyError(`${shown} is not a regular file or a directory`);
    }
  };
  await walk(source, destination);
  return files;
}
