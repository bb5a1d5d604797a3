import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";
import {
  ArchiveError,
  type ArchiveLimits,
  inspectEngineArchive,
  MAX_UNPACKED_BYTES,
} from "../engine-archive/inspect-archive";
import { type TarInput, writeTar } from "../engine-archive/write-tar";
import { currentProtocol } from "../protocol";
import { ClientError, EXIT } from "./exit-codes";

export interface PackedEngine {
  /** The base64 of the .tar.gz, as `engine.inline` takes it. */
  inline: string;
  gz: Buffer;
  files: number;
  unpackedBytes: number;
  sha256: string;
}

/**
 * The arena's default archive limits (its ENGINE_ARCHIVE_MAX_UNPACKED_BYTES and _MAX_FILES): the client checks
 * these; an arena whose operators set them tighter refuses at submission, with its own message, before any charge.
 */
export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxUnpackedBytes: MAX_UNPACKED_BYTES, maxFiles: 10_000 };

const refuse = (dir: string, message: string) =>
  new ClientError(EXIT.engineRefused, `engine directory ${dir}: ${message}`);

/**
 * Packs an engine directory as the arena will read it (files and folders only; what a link inside the directory
 * points to is packed in its place), and checks it against the protocol before anything is sent: `launch.sh` at its
 * top, a file, executable; no link leaving the directory, none looping, nothing that is neither file nor folder; at
 * most 200 MiB unpacked and the protocol's inline size; then the arena's own archive inspection.
 */
export async function packEngineDirectory(dir: string): Promise<PackedEngine> {
  const root = resolve(dir);
  const top = await stat(root).catch(() => null);
  if (!top) throw refuse(dir, "does not exist");
  if (!top.isDirectory()) throw refuse(dir, "is not a directory");
  const realRoot = await realpath(root);
  const entries: TarInput[] = [];
  let unpackedBytes = 0;

  async function walk(realDir: string, shown: string, ancestors: Set<string>): Promise<void> {
    for (const name of (await readdir(realDir)).sort()) {
      const path = shown === "" ? name : `${shown}/${name}`;
      const full = join(realDir, name);
      let info = await lstat(full);
      let real = full;
      if (info.isSymbolicLink()) {
        real = await realpath(full).catch(() => "");
        if (real === "") throw refuse(dir, `"${path}" is a broken link`);
        if (real !== realRoot && !real.startsWith(realRoot + sep)) {
          throw refuse(
            dir,
            `"${path}" is a link to ${real}, outside the directory: the arena reads only what the directory holds (copy it in)`,
          );
        }
        info = await stat(real);
      }
      if (info.isDirectory()) {
        if (ancestors.has(real)) throw refuse(dir, `"${path}" is a link to a folder that holds it (a loop)`);
        entries.push({ path, type: "directory", mode: 0o755 });
        if (entries.length > DEFAULT_ARCHIVE_LIMITS.maxFiles) {
          throw refuse(
            dir,
            `holds more than ${DEFAULT_ARCHIVE_LIMITS.maxFiles.toLocaleString("en")} files and folders`,
          );
        }
        await walk(real, path, new Set([...ancestors, real]));
      } else if (info.isFile()) {
        unpackedBytes += info.size;
        if (unpackedBytes > MAX_UNPACKED_BYTES) {
          throw refuse(
            dir,
            `holds more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB; weights belong in the speculator`,
          );
        }
        entries.push({ path, type: "file", mode: info.mode & 0o777, data: await readFile(real) });
        if (entries.length > DEFAULT_ARCHIVE_LIMITS.maxFiles) {
          throw refuse(
            dir,
            `holds more than ${DEFAULT_ARCHIVE_LIMITS.maxFiles.toLocaleString("en")} files and folders`,
          );
        }
      } else {
        throw refuse(dir, `"${path}" is neither a file nor a folder (a socket, a pipe or a device)`);
      }
    }
  }
  await walk(realRoot, "", new Set([realRoot]));

  const launch = entries.find((e) => e.path === "launch.sh");
  if (!launch) {
    throw refuse(dir, "has no launch.sh at its top: the arena runs `launch.sh serve` from the engine directory");
  }
  if (launch.type !== "file") throw refuse(dir, "launch.sh is a folder: it must be a file");
  if (((launch.mode ?? 0) & 0o100) === 0) {
    throw refuse(
      dir,
      `launch.sh is not executable: run chmod +x ${join(relative(process.cwd(), root) || ".", "launch.sh")}`,
    );
  }

  const gz = gzipSync(writeTar(entries), { level: 9 });
  const inline = gz.toString("base64");
  const max = currentProtocol().submission.engineInlineMaxChars;
  if (inline.length > max) {
    throw refuse(
      dir,
      `packs to ${inline.length.toLocaleString("en")} base64 characters, more than the ${max.toLocaleString("en")} an inline engine may have: leave weights out (the speculator is fetched from the Hub) or submit a repository`,
    );
  }
  try {
    const inspected = await inspectEngineArchive(gz, DEFAULT_ARCHIVE_LIMITS);
    return {
      inline,
      gz,
      files: inspected.files.length,
      unpackedBytes: inspected.unpackedBytes,
      sha256: inspected.sha256,
    };
  } catch (error) {
    if (error instanceof ArchiveError) throw refuse(dir, `the arena would refuse it: the archive ${error.message}`);
    throw error;
  }
}
