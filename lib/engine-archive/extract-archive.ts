import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import { type ArchiveLimits, archiveLimits, inspectEngineArchive, scanEngineArchive } from "./inspect-archive";

/**
 * Unpacks a checked engine archive into `dest`, which must not exist yet: it writes inspection's plan and nothing
 * else (the same code refused the archive at submission), every path created new, never over something there.
 * The whole archive is checked first, within the same limits, so nothing is written for an archive refused late;
 * then it streams again and each file is written as it inflates. Returns the archive's sha256.
 */
export async function extractEngineArchive(
  gz: Buffer,
  dest: string,
  limits: ArchiveLimits = archiveLimits(),
): Promise<string> {
  const inspected = await inspectEngineArchive(gz, limits);
  await mkdir(dest, { recursive: true });
  for (const dir of inspected.directories) await mkdir(join(dest, dir), { mode: 0o755 });
  await scanEngineArchive(gz, limits, async (file) => {
    const handle = await open(join(dest, file.path), "wx", 0o644);
    return {
      async write(chunk) {
        for (let at = 0; at < chunk.length; ) at += (await handle.write(chunk, at)).bytesWritten;
      },
      async close() {
        try {
          // Keep the owner's execute bit (launch.sh must run); nothing is setuid or world-writable.
          await handle.chmod(file.mode & 0o100 ? 0o755 : 0o644);
        } finally {
          await handle.close();
        }
      },
    };
  });
  return inspected.sha256;
}
