import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { createGzip, gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { extractEngineArchive } from "./extract-archive";
import { ArchiveError, type ArchiveLimits, inspectEngineArchive } from "./inspect-archive";
import { writeTar } from "./write-tar";

const launch = new TextEncoder().encode('#!/usr/bin/env bash\ncase "$1" in serve) exec true;; esac\n');
const MiB = 1024 * 1024;
const roomy: ArchiveLimits = { maxUnpackedBytes: 200 * MiB, maxFiles: 10_000 };

/** A ustar header block, as tar writes one: the fields the arena reads, and the checksum over the block. */
function ustarHeader(path: string, size: number, typeflag = "0"): Buffer {
  const block = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => block.write(value, offset, length, "ascii");
  field(0, 100, path);
  field(100, 8, "0000644\0");
  field(108, 8, "0000000\0");
  field(116, 8, "0000000\0");
  field(124, 12, `${size.toString(8).padStart(11, "0")}\0`);
  field(136, 12, "00000000000\0");
  block.fill(32, 148, 156);
  field(156, 1, typeflag);
  field(257, 6, "ustar\0");
  field(263, 2, "00");
  let sum = 0;
  for (const byte of block) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

/**
 * A small archive that inflates to one file of `zeros` zero bytes beside launch.sh: gzip'd as it is generated, so the
 * test never holds the inflated bytes (as a participant making one would not).
 */
async function bomb(zeros: number): Promise<Buffer> {
  function* tar() {
    yield ustarHeader("launch.sh", launch.length);
    yield Buffer.concat([Buffer.from(launch), Buffer.alloc(512 - launch.length)]);
    yield ustarHeader("weights.bin", zeros);
    const piece = Buffer.alloc(MiB);
    for (let left = zeros; left > 0; left -= piece.length) yield left >= piece.length ? piece : piece.subarray(0, left);
    yield Buffer.alloc((512 - (zeros % 512)) % 512);
    yield Buffer.alloc(1024);
  }
  return buffer(Readable.from(tar()).pipe(createGzip({ level: 9 })));
}

/** The longest the event loop went without running a 5 ms timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<{ stallMs: number; result: unknown }> {
  let last = performance.now();
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 5);
  try {
    const result = await work().catch((error: unknown) => error);
    return { stallMs: Math.max(stallMs, performance.now() - last), result };
  } finally {
    clearInterval(ticker);
  }
}

describe("an inline archive's limits", () => {
  it("refuses more files and folders than the limit, naming it", async () => {
    const files = Array.from({ length: 30 }, (_, i) => ({ path: `plugin/f${i}.py`, data: new Uint8Array(1) }));
    const archive = gzipSync(writeTar([{ path: "launch.sh", data: launch }, ...files]));
    await expect(inspectEngineArchive(archive, { maxUnpackedBytes: MiB, maxFiles: 20 })).rejects.toThrow(
      /^holds more than 20 files and folders \(the limit\)$/,
    );
    expect((await inspectEngineArchive(archive, { maxUnpackedBytes: MiB, maxFiles: 31 })).files).toHaveLength(31);
  });

  it("refuses more unpacked bytes than the limit as soon as a header declares them, naming it", async () => {
    const archive = await bomb(3 * MiB);
    expect(archive.length).toBeLessThan(20_000);
    await expect(inspectEngineArchive(archive, { maxUnpackedBytes: MiB, maxFiles: 20 })).rejects.toThrow(
      /^unpacks to more than 1,048,576 bytes \(the limit\)$/,
    );
  });

  it("refuses what inflates past the limit even where no header declares it (extended headers)", async () => {
    // 40 pax records of 60 KiB each (typeflag "x"): none is a file, all of them inflate
    const blocks: Buffer[] = [];
    for (let n = 0; n < 40; n++) {
      const body = ` comment=${"c".repeat(60 * 1024)}\n`;
      const record = `${body.length + String(body.length).length}${body}`;
      blocks.push(ustarHeader(`PaxHeader/${n}`, record.length, "x"), Buffer.from(record));
      blocks.push(Buffer.alloc((512 - (record.length % 512)) % 512));
    }
    const archive = gzipSync(Buffer.concat([...blocks, Buffer.from(writeTar([{ path: "launch.sh", data: launch }]))]));
    await expect(inspectEngineArchive(archive, { maxUnpackedBytes: 256 * 1024, maxFiles: 20 })).rejects.toThrow(
      /^unpacks to more than 262,144 bytes \(the limit\)$/,
    );
  });

  it("inspects a bomb off the request thread: the event loop keeps turning while 120 MiB inflate", async () => {
    const archive = await bomb(120 * MiB);
    expect(archive.length).toBeLessThan(200_000);
    const { stallMs, result } = await longestStall(() => inspectEngineArchive(archive, roomy));
    expect(result).toMatchObject({ unpackedBytes: 120 * MiB + launch.length });
    // inflating it in one synchronous call holds the loop for the whole inflate (0.6 s for 199 MB on a quiet core),
    // measured beside it: a machine busy with other work stretches both, and scheduling alone stalls a loop for tens
    // of milliseconds, so the inspection must hold the loop for well under half the inflate
    const held = await longestStall(async () => gunzipSync(archive));
    expect(stallMs).toBeLessThan(Math.max(200, held.stallMs / 2));
  });

  it("enforces the limits again at extraction, before writing anything", async () => {
    const files = Array.from({ length: 30 }, (_, i) => ({ path: `plugin/f${i}.py`, data: new Uint8Array(1) }));
    const archive = gzipSync(writeTar([{ path: "launch.sh", data: launch }, ...files]));
    const dir = await mkdtemp(join(tmpdir(), "engine-limits-"));
    try {
      await expect(
        extractEngineArchive(archive, join(dir, "out"), { maxUnpackedBytes: MiB, maxFiles: 20 }),
      ).rejects.toThrow(ArchiveError);
      expect(await readdir(dir)).toEqual([]);
      await extractEngineArchive(archive, join(dir, "ok"), { maxUnpackedBytes: MiB, maxFiles: 40 });
      expect((await readdir(join(dir, "ok", "plugin"))).length).toBe(30);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("extracts a large file as it streams, exactly as packed", async () => {
    const archive = await bomb(8 * MiB);
    const dir = await mkdtemp(join(tmpdir(), "engine-limits-"));
    try {
      await extractEngineArchive(archive, join(dir, "out"), roomy);
      const { stat } = await import("node:fs/promises");
      expect((await stat(join(dir, "out", "weights.bin"))).size).toBe(8 * MiB);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
