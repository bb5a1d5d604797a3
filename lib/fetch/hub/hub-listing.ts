import { z } from "zod";
import { ArchiveError, safeRelativePath } from "../../engine-archive/inspect-archive";
import { FetchError } from "../fetch-errors";
import { describeSubject, type HubSubject } from "./hub-errors";

/**
 * `GET /api/models/{repo}/revision/{revision}?blobs=true`, as huggingface_hub's `model_info(files_metadata=True)`
 * asks for it and `ModelInfo`/`RepoSibling`/`BlobLfsInfo` (hf_api.py) read it: `siblings[]` carry `rfilename`,
 * `size`, `blobId` (the git blob sha1) and, for LFS files, `lfs: {sha256, size, pointerSize}`.
 */
export const revisionInfoSchema = z.object({
  id: z.string(),
  sha: z.string(),
  siblings: z.array(
    z.object({
      rfilename: z.string(),
      size: z.number().int().nonnegative().optional(),
      blobId: z
        .string()
        .regex(/^[0-9a-f]{40}$/)
        .optional(),
      lfs: z
        .object({
          sha256: z.string().regex(/^[0-9a-f]{64}$/),
          size: z.number().int().nonnegative(),
        })
        .nullish(),
    }),
  ),
});
export type RevisionInfo = z.infer<typeof revisionInfoSchema>;

export interface PlannedFile {
  path: string;
  size: number;
  /** The LFS object id: the sha256 of the file's bytes. */
  sha256?: string;
  /** For a file stored in git itself: its blob id, sha1 over `blob <size>\0` and the bytes. */
  gitBlobSha1?: string;
}

/** Protocol section 2: only these are fetched; Python, pickles and everything else never are. */
const FETCHED = /\.(json|safetensors)$/;
/** More files than any speculator needs; it bounds the requests one submission can make the arena send. */
export const MAX_SPECULATOR_FILES = 1000;

/**
 * Chooses what to download from the Hub's listing of a revision, and refuses, before any byte is fetched,
 * a listing that is not of the exact commit asked for, holds no weights, an unsafe path, or too many bytes.
 */
export function planSpeculatorFiles(info: RevisionInfo, subject: HubSubject, maxBytes: number): PlannedFile[] {
  const what = describeSubject(subject);
  if (info.sha !== subject.revision) {
    throw new FetchError(
      `the Hub resolves ${what} to commit ${info.sha}: not the exact commit asked for`,
      "submission",
    );
  }
  const files: PlannedFile[] = [];
  for (const sibling of info.siblings) {
    if (!FETCHED.test(sibling.rfilename)) continue;
    let safe: string;
    try {
      safe = safeRelativePath(sibling.rfilename);
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      safe = "";
    }
    if (safe !== sibling.rfilename) {
      throw new FetchError(`${what} lists the unsafe path "${sibling.rfilename}"`, "submission");
    }
    const size = sibling.lfs?.size ?? sibling.size;
    if (size === undefined) throw new FetchError(`the Hub's listing of ${what} gives no size for "${safe}"`, "arena");
    files.push(
      sibling.lfs
        ? { path: safe, size, sha256: sibling.lfs.sha256 }
        : { path: safe, size, ...(sibling.blobId ? { gitBlobSha1: sibling.blobId } : {}) },
    );
  }
  if (!files.some((f) => f.path.endsWith(".safetensors"))) {
    throw new FetchError(
      `${what} holds no *.safetensors file: a speculator's weights must be safetensors`,
      "submission",
    );
  }
  if (files.length > MAX_SPECULATOR_FILES) {
    throw new FetchError(
      `${what} holds ${files.length} *.json and *.safetensors files, more than the ${MAX_SPECULATOR_FILES} allowed`,
      "submission",
    );
  }
  const total = files.reduce((n, f) => n + f.size, 0);
  if (total > maxBytes) {
    throw new FetchError(
      `${what} holds ${total} bytes of *.json and *.safetensors, more than half the target's bytes (${maxBytes})`,
      "submission",
    );
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
