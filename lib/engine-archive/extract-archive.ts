import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { inspectEngineArchive } from "./inspect-archive";

/**
 * Unpacks a checked engine archive into `dest`, which must not exist yet: it writes inspection's plan and nothing
 * else (the same code refused the archive at submission), every path created new, never over something there.
 * Returns the archive's sha256.
 */
export async function extractEngineArchive(gz: Buffer, dest: string): Promise<string> {
  const inspected = inspectEngineArchive(gz);
  await mkdir(dest, { recursive: true });
  for (const dir of inspected.directories) await mkdir(join(dest, dir), { mode: 0o755 });
  for (const file of inspected.files) {
    // Keep the owner's execute bit (launch.sh must run); nothing is setuid or world-writable.
    const target = join(dest, file.path);
    await writeFile(target, file.data, { flag: "wx" });
    await chmod(target, file.mode & 0o100 ? 0o755 : 0o644);
  }
  return inspected.sha256;
}
