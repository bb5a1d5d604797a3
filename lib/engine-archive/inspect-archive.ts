import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { readTar, type TarEntry } from "./read-tar";

/** The most an engine archive may unpack to (the protocol's repository limit). */
export const MAX_UNPACKED_BYTES = 200 * 1024 * 1024;

export interface InspectedArchive {
  sha256: string;
  files: { path: string; size: number; mode: number }[];
  unpackedBytes: number;
  entries: TarEntry[];
}

export class ArchiveError extends Error {}

/** Normalises an entry's path; refuses absolute paths and any path that climbs out of the directory. */
export function safeRelativePath(raw: string): string {
  if (raw.startsWith("/") || /^[A-Za-z]:[\\/]/.test(raw)) throw new ArchiveError(`path "${raw}" is absolute`);
  const parts: string[] = [];
  for (const part of raw.split(/[\\/]+/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") throw new ArchiveError(`path "${raw}" escapes the engine directory`);
    parts.push(part);
  }
  return parts.join("/");
}

/**
 * Checks an engine archive as the protocol requires: a gzip'd tar, with `launch.sh` at its top,
 * no links, no special files and no path that escapes the directory.
 */
export function inspectEngineArchive(gz: Buffer): InspectedArchive {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz, { maxOutputLength: MAX_UNPACKED_BYTES + 1024 * 1024 });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/buffer|length/i.test(message) && /exceed|larger|Cannot create/i.test(message)) {
      throw new ArchiveError(`unpacks to more than ${MAX_UNPACKED_BYTES} bytes`);
    }
    throw new ArchiveError("is not a gzip file (expected a .tar.gz)");
  }
  let entries: TarEntry[];
  try {
    entries = readTar(tar);
  } catch (error) {
    throw new ArchiveError(`is not a tar archive inside its gzip (${(error as Error).message})`);
  }
  if (entries.length === 0) throw new ArchiveError("is an empty archive");
  const files: InspectedArchive["files"] = [];
  let unpackedBytes = 0;
  const normalised: TarEntry[] = [];
  for (const entry of entries) {
    const path = safeRelativePath(entry.path);
    if (entry.type === "symlink" || entry.type === "hardlink") {
      throw new ArchiveError(`holds a link ("${entry.path}" → "${entry.linkTarget}"); links are not allowed`);
    }
    if (entry.type === "other")
      throw new ArchiveError(`holds "${entry.path}", which is neither a file nor a directory`);
    if (path === "") continue;
    normalised.push({ ...entry, path });
    if (entry.type === "file") {
      unpackedBytes += entry.size;
      files.push({ path, size: entry.size, mode: entry.mode });
    }
  }
  if (unpackedBytes > MAX_UNPACKED_BYTES) throw new ArchiveError(`unpacks to more than ${MAX_UNPACKED_BYTES} bytes`);
  if (!files.some((f) => f.path === "launch.sh")) {
    throw new ArchiveError("has no launch.sh at its top level (the engine directory must hold launch.sh)");
  }
  return { sha256: createHash("sha256").update(gz).digest("hex"), files, unpackedBytes, entries: normalised };
}
