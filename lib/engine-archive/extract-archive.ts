import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { inspectEngineArchive } from "./inspect-archive";

/** Unpacks a checked engine archive into `dest` (which must not hold anything yet); returns its sha256. */
export async function extractEngineArchive(gz: Buffer, dest: string): Promise<string> {
  const inspected = inspectEngineArchive(gz);
  await mkdir(dest, { recursive: true });
  for (const entry of inspected.entries) {
    const target = join(dest, entry.path);
    if (entry.type === "directory") {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, entry.data);
    // Keep the owner's execute bit (launch.sh must run); nothing is setuid or world-writable.
    await chmod(target, entry.mode & 0o100 ? 0o755 : 0o644);
  }
  return inspected.sha256;
}
