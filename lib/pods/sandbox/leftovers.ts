import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * Removes what an engine left in scratch folders (protocol section 4): in the pod's own tmpfs (`own`), every entry
 * the agent did not make itself; in the host's shared ones, the engine user's entries only. Resolves with how many
 * entries went.
 */
export async function clearLeftovers(folders: readonly string[], left: (owner: number) => boolean): Promise<number> {
  let removed = 0;
  for (const folder of folders) {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      const path = join(folder, name);
      const info = await lstat(path).catch(() => null);
      if (!info || !left(info.uid)) continue;
      await rm(path, { recursive: true, force: true });
      removed += 1;
    }
  }
  return removed;
}
