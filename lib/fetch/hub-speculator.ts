import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { request } from "undici";
import { z } from "zod";
import { safeRelativePath } from "../engine-archive/inspect-archive";
import { FetchError } from "./fetch-errors";

const revisionInfo = z.object({
  sha: z.string(),
  siblings: z.array(
    z.object({
      rfilename: z.string(),
      size: z.number().int().nonnegative().optional(),
      lfs: z.object({ size: z.number().int().nonnegative() }).optional(),
    }),
  ),
});

const FETCHED = /\.(json|safetensors)$/;

export interface SpeculatorFetch {
  hubBaseUrl: string;
  repository: string;
  revision: string;
  dest: string;
  /** Half the target's bytes: the most a speculator may hold. */
  maxBytes: number;
  token?: string;
}

async function hubGet(url: string, token?: string) {
  try {
    return await request(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      maxRedirections: 5,
      headersTimeout: 60_000,
      bodyTimeout: 300_000,
    } as Parameters<typeof request>[1]);
  } catch (error) {
    throw new FetchError(`the Hub could not be reached (${(error as Error).message})`, "arena");
  }
}

/**
 * Downloads a speculator checkpoint from the Hub at its exact commit through the Hub's HTTP API:
 * only `*.json` and `*.safetensors`, refused before any download when they exceed `maxBytes`.
 */
export async function fetchSpeculatorFromHub(input: SpeculatorFetch): Promise<{ files: string[]; bytes: number }> {
  const base = input.hubBaseUrl.replace(/\/$/, "");
  const info = await hubGet(
    `${base}/api/models/${input.repository}/revision/${input.revision}?blobs=true`,
    input.token,
  );
  if (info.statusCode === 404 || info.statusCode === 401 || info.statusCode === 403) {
    await info.body.dump();
    throw new FetchError(
      `speculator ${input.repository}@${input.revision} was not found on the Hub (HTTP ${info.statusCode})`,
      "submission",
    );
  }
  if (info.statusCode !== 200) {
    await info.body.dump();
    throw new FetchError(`the Hub answered HTTP ${info.statusCode} for the speculator's listing`, "arena");
  }
  const listing = revisionInfo.safeParse(await info.body.json());
  if (!listing.success) throw new FetchError("the Hub's listing of the speculator was not understood", "arena");
  if (listing.data.sha !== input.revision) {
    throw new FetchError(
      `the Hub resolved ${input.revision} to ${listing.data.sha}: not an exact commit`,
      "submission",
    );
  }
  const wanted = listing.data.siblings
    .filter((s) => FETCHED.test(s.rfilename))
    .map((s) => ({ path: safeRelativePath(s.rfilename), size: s.lfs?.size ?? s.size ?? 0 }));
  const declared = wanted.reduce((n, f) => n + f.size, 0);
  if (declared > input.maxBytes) {
    throw new FetchError(
      `speculator holds ${declared} bytes of *.json and *.safetensors, more than half the target's (${input.maxBytes})`,
      "submission",
    );
  }
  await mkdir(input.dest, { recursive: true });
  let bytes = 0;
  for (const file of wanted) {
    const response = await hubGet(`${base}/${input.repository}/resolve/${input.revision}/${file.path}`, input.token);
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new FetchError(`downloading ${file.path} failed with HTTP ${response.statusCode}`, "arena");
    }
    const target = join(input.dest, file.path);
    await mkdir(dirname(target), { recursive: true });
    let received = 0;
    const counted = Readable.from(
      (async function* () {
        for await (const chunk of response.body) {
          received += (chunk as Buffer).length;
          if (bytes + received > input.maxBytes) {
            throw new FetchError("speculator exceeded half the target's bytes while downloading", "submission");
          }
          yield chunk as Buffer;
        }
      })(),
    );
    await pipeline(counted, createWriteStream(target, { mode: 0o644 }));
    bytes += received;
  }
  return { files: wanted.map((f) => f.path), bytes };
}
