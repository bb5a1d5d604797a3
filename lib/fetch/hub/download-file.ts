import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { chmod, mkdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { FetchError } from "../fetch-errors";
import type { HubClient } from "./hub-client";
import { describeSubject, type HubSubject } from "./hub-errors";
import type { PlannedFile } from "./hub-listing";

export interface FetchedFile {
  path: string;
  size: number;
  sha256: string;
}

/**
 * Downloads one listed file to `dest/<path>` (mode 0644), checking while it streams that its bytes are the
 * ones the Hub listed: their count, their sha256 for an LFS file, their git blob id for a file kept in git.
 * It is written under a temporary name and renamed, so a failed try leaves nothing under the real name.
 */
export async function downloadFile(
  client: HubClient,
  url: string,
  file: PlannedFile,
  dest: string,
  subject: HubSubject,
): Promise<FetchedFile> {
  const target = join(dest, file.path);
  await mkdir(dirname(target), { recursive: true, mode: 0o755 });
  const what = describeSubject(subject);
  return client.withRetries(subject, async () => {
    const response = await client.get(url, subject);
    const encoding = response.headers["content-encoding"];
    if (encoding !== undefined && encoding !== "identity") {
      await response.body.dump();
      throw new FetchError(`the Hub sent ${what} with content-encoding ${encoding}, which was not asked for`, "arena");
    }
    const announced = Number(response.headers["content-length"] ?? file.size);
    if (announced !== file.size) {
      await response.body.dump();
      throw new FetchError(`${what} is ${announced} bytes on the Hub, but its listing says ${file.size}`, "submission");
    }
    const sha256 = createHash("sha256");
    const gitBlob = createHash("sha1").update(`blob ${file.size}\0`);
    let received = 0;
    const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.part`);
    try {
      await pipeline(
        response.body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            received += chunk.length;
            if (received > file.size) {
              throw new FetchError(`${what} is more than the ${file.size} bytes its listing says`, "submission");
            }
            sha256.update(chunk);
            gitBlob.update(chunk);
            yield chunk;
          }
        },
        createWriteStream(temp, { flags: "wx", mode: 0o644 }),
      );
      if (received !== file.size) {
        throw new FetchError(
          `${what} is ${received} bytes on the Hub, but its listing says ${file.size}`,
          "submission",
        );
      }
      const digest = sha256.digest("hex");
      if (file.sha256 && digest !== file.sha256) {
        throw new FetchError(`${what} has sha256 ${digest}, but the Hub lists ${file.sha256}`, "submission");
      }
      const blobId = gitBlob.digest("hex");
      if (file.gitBlobSha1 && blobId !== file.gitBlobSha1) {
        throw new FetchError(`${what} has git blob id ${blobId}, but the Hub lists ${file.gitBlobSha1}`, "submission");
      }
      await chmod(temp, 0o644);
      await rename(temp, target);
      return { path: file.path, size: received, sha256: digest };
    } finally {
      await rm(temp, { force: true });
    }
  });
}
