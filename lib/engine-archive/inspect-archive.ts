import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { readTar, type TarEntry } from "./read-tar";

/** The most an engine archive may unpack to (the protocol's repository limit). */
export const MAX_UNPACKED_BYTES = 200 * 1024 * 1024;

/** The most bytes one name in a path may have (Linux's NAME_MAX). */
export const MAX_NAME_BYTES = 255;
/** The most bytes an entry's path may have, so that it fits PATH_MAX under any evaluation's folder. */
export const MAX_PATH_BYTES = 1024;

export interface PlannedFile {
  path: string;
  size: number;
  mode: number;
  data: Buffer;
}

/**
 * An archive as it will be written: the folders to make (every parent before its children) and the files, each
 * path once. Extraction writes exactly this and nothing else, so whatever inspection passes extracts.
 */
export interface InspectedArchive {
  sha256: string;
  files: PlannedFile[];
  directories: string[];
  unpackedBytes: number;
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
 * Checks an engine archive as the protocol requires: a gzip'd tar, with `launch.sh` a file at its top, no links,
 * no special files, no path that escapes the directory, and nothing extraction could not write: a path named twice,
 * a file where a folder must be (or the other way round), a name or path too long for the file system.
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
  const plan = new ExtractionPlan();
  for (const entry of entries) {
    const path = safeRelativePath(entry.path);
    if (entry.type === "symlink" || entry.type === "hardlink") {
      throw new ArchiveError(`holds a link ("${entry.path}" → "${entry.linkTarget}"); links are not allowed`);
    }
    if (entry.type === "other")
      throw new ArchiveError(`holds "${entry.path}", which is neither a file nor a directory`);
    if (path === "") continue;
    if (entry.type === "directory") plan.directory(path);
    else plan.file({ path, size: entry.size, mode: entry.mode, data: entry.data });
  }
  const { files, directories } = plan;
  const unpackedBytes = files.reduce((n, f) => n + f.size, 0);
  if (unpackedBytes > MAX_UNPACKED_BYTES) throw new ArchiveError(`unpacks to more than ${MAX_UNPACKED_BYTES} bytes`);
  if (!files.some((f) => f.path === "launch.sh")) {
    throw new ArchiveError(
      plan.kindOf("launch.sh") === "directory"
        ? 'holds "launch.sh" as a folder: it must be a file'
        : "has no launch.sh at its top level (the engine directory must hold launch.sh)",
    );
  }
  return { sha256: createHash("sha256").update(gz).digest("hex"), files, directories, unpackedBytes };
}

/** What each path of the engine directory will be; every conflict extraction would meet is refused here. */
class ExtractionPlan {
  private readonly kinds = new Map<string, "file" | "directory">();
  readonly files: PlannedFile[] = [];
  readonly directories: string[] = [];

  kindOf(path: string): "file" | "directory" | undefined {
    return this.kinds.get(path);
  }

  file(file: PlannedFile): void {
    this.checkLength(file.path);
    this.parentsOf(file.path);
    const held = this.kinds.get(file.path);
    if (held === "file") throw new ArchiveError(`holds "${file.path}" twice: each path may appear once`);
    if (held === "directory") throw new ArchiveError(`holds "${file.path}" both as a file and as a folder`);
    this.kinds.set(file.path, "file");
    this.files.push(file);
  }

  /** A folder named twice is one folder: tar itself writes some twice (`tar -r`), and nothing is lost. */
  directory(path: string): void {
    this.checkLength(path);
    this.parentsOf(path);
    const held = this.kinds.get(path);
    if (held === "file") throw new ArchiveError(`holds "${path}" both as a file and as a folder`);
    if (held === undefined) {
      this.kinds.set(path, "directory");
      this.directories.push(path);
    }
  }

  /** Every parent of a path is a folder, made before it. */
  private parentsOf(path: string): void {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join("/");
      if (this.kinds.get(parent) === "file")
        throw new ArchiveError(`holds "${path}" inside "${parent}", which the archive also holds as a file`);
      if (!this.kinds.has(parent)) {
        this.kinds.set(parent, "directory");
        this.directories.push(parent);
      }
    }
  }

  private checkLength(path: string): void {
    if (Buffer.byteLength(path) > MAX_PATH_BYTES)
      throw new ArchiveError(`holds a path longer than ${MAX_PATH_BYTES} bytes ("${path.slice(0, 60)}…")`);
    const long = path.split("/").find((name) => Buffer.byteLength(name) > MAX_NAME_BYTES);
    if (long) throw new ArchiveError(`holds a name longer than ${MAX_NAME_BYTES} bytes ("${long.slice(0, 60)}…")`);
  }
}
