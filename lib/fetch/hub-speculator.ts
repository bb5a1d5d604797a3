import { mkdir } from "node:fs/promises";
import { FetchError } from "./fetch-errors";
import { downloadFile, type FetchedFile } from "./hub/download-file";
import { DEFAULT_HUB_HTTP, HubClient, type HubHttpOptions, readText } from "./hub/hub-client";
import { describeSubject, type HubSubject } from "./hub/hub-errors";
import { planSpeculatorFiles, revisionInfoSchema } from "./hub/hub-listing";

export type { FetchedFile } from "./hub/download-file";
export type { HubHttpOptions } from "./hub/hub-client";

export interface SpeculatorFetch {
  hubBaseUrl: string;
  /** "org/name" on the Hub. */
  repository: string;
  /** The exact commit: 40 lowercase hex characters; a branch, a tag or a short hash is refused. */
  revision: string;
  /** Where the files land (created when missing); the caller seals it. */
  dest: string;
  /** Half the target's bytes: the most a speculator may hold. */
  maxBytes: number;
  /** Sent as `Authorization: Bearer` to the Hub's own origin only. */
  token?: string;
  /** Timeouts, tries and backoff; the defaults suit the real Hub, tests pass short ones. */
  http?: Partial<HubHttpOptions>;
}

export interface FetchedSpeculator {
  commit: string;
  /** In path order. */
  files: FetchedFile[];
  bytes: number;
}

const COMMIT = /^[0-9a-f]{40}$/;
/** huggingface_hub's `validate_repo_id`, with the namespace required. */
const REPO_ID = /^[A-Za-z0-9][\w.-]{0,94}\/[A-Za-z0-9][\w.-]{0,94}$/;
/** A listing this large is a repository of far too many files. */
const MAX_LISTING_BYTES = 32 * 1024 * 1024;

function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/**
 * Downloads a speculator from the Hub at its exact commit (protocol section 2): only its `*.json` and
 * `*.safetensors` files, refused before any download when they exceed `maxBytes`, each checked against the
 * Hub's listing. Every failure is a `FetchError`: the participant's ("submission") or the arena's ("arena").
 */
export async function fetchSpeculatorFromHub(input: SpeculatorFetch): Promise<FetchedSpeculator> {
  const subject: HubSubject = { repository: input.repository, revision: input.revision };
  if (!REPO_ID.test(input.repository) || /--|\.\./.test(input.repository) || input.repository.endsWith(".")) {
    throw new FetchError(`speculator "${input.repository}" is not a Hugging Face repository "org/name"`, "submission");
  }
  if (!COMMIT.test(input.revision)) {
    throw new FetchError(
      `${describeSubject(subject)}: the revision must be an exact commit (40 lowercase hex characters), not a branch, tag or short hash`,
      "submission",
    );
  }
  const base = `${input.hubBaseUrl.replace(/\/+$/, "")}`;
  const client = new HubClient(base, input.token, { ...DEFAULT_HUB_HTTP, ...input.http });
  try {
    const info = await client.withRetries(subject, async () => {
      const response = await client.get(
        `${base}/api/models/${input.repository}/revision/${input.revision}?blobs=true`,
        subject,
      );
      const { text, truncated } = await readText(response.body, MAX_LISTING_BYTES);
      if (truncated) {
        throw new FetchError(
          `the Hub's listing of ${describeSubject(subject)} is over 32 MiB: too many files`,
          "submission",
        );
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      const parsed = revisionInfoSchema.safeParse(json);
      if (!parsed.success) {
        throw new FetchError(`the Hub's listing of ${describeSubject(subject)} was not understood`, "arena");
      }
      return parsed.data;
    });
    const planned = planSpeculatorFiles(info, subject, input.maxBytes);
    await mkdir(input.dest, { recursive: true, mode: 0o755 });
    const files: FetchedFile[] = [];
    for (const file of planned) {
      const url = `${base}/${input.repository}/resolve/${input.revision}/${encodePath(file.path)}`;
      files.push(await downloadFile(client, url, file, input.dest, { ...subject, path: file.path }));
    }
    return { commit: info.sha, files, bytes: files.reduce((n, f) => n + f.size, 0) };
  } catch (error) {
    if (error instanceof FetchError) throw error;
    // a file system error's message names the server's paths: the public reason gives its code, the cause the rest
    const code = (error as { code?: unknown } | null)?.code;
    const what = typeof code === "string" ? ` (${code})` : "";
    throw new FetchError(`fetching ${describeSubject(subject)} failed on the arena's side${what}`, "arena", {
      cause: error,
    });
  } finally {
    await client.close();
  }
}
