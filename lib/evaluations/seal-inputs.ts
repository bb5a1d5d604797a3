import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { extractEngineArchive } from "../engine-archive/extract-archive";
import { ArchiveError } from "../engine-archive/inspect-archive";
import { env } from "../env";
import { FetchError } from "../fetch/fetch-errors";
import { fetchEngineFromGit } from "../fetch/git-engine";
import { type FetchedFile, fetchSpeculatorFromHub } from "../fetch/hub-speculator";
import { sealDirectory } from "../fetch/seal-directory";
import { currentProtocol, type TaskId } from "../protocol";
import { dataDir, targetBytes, targetDir } from "./runtime";

export interface SubmissionInputs {
  evaluationId: string;
  attempt: number;
  taskId: TaskId;
  engine:
    | { source: "inline"; archive: Buffer }
    | { source: "repository"; uri: string; revision: string; subdir: string | null };
  speculator: { uri: string; revision: string } | null;
}

export interface SealedInputs {
  engineDir: string;
  speculatorDir: string;
  targetDir: string;
  engineDigest: string;
  speculatorCommit: string | null;
  speculatorDigest: string | null;
  /** The speculator's files as fetched and sealed, in path order; empty when none was given. */
  speculatorFiles: FetchedFile[];
}

/** Fetches the engine and the speculator and seals both read-only, before any engine code runs. */
export async function sealInputs(input: SubmissionInputs): Promise<SealedInputs> {
  const root = join(dataDir(), "evaluations", input.evaluationId, `a${input.attempt}`);
  await rm(root, { recursive: true, force: true });
  const engineDir = join(root, "engine");
  const speculatorDir = join(root, "speculator");
  await mkdir(root, { recursive: true });
  const protocol = currentProtocol();

  let engineDigest: string;
  if (input.engine.source === "inline") {
    try {
      engineDigest = await extractEngineArchive(input.engine.archive, engineDir);
    } catch (error) {
      if (error instanceof ArchiveError) throw new FetchError(`the engine archive ${error.message}`, "submission");
      throw error;
    }
  } else {
    await fetchEngineFromGit({
      uri: input.engine.uri,
      revision: input.engine.revision,
      subdir: input.engine.subdir,
      gitBaseUrl: env().GIT_BASE_URL,
      dest: engineDir,
      maxBytes: protocol.submission.engineRepositoryMaxBytes,
    });
    engineDigest = "";
  }
  const sealedEngine = await sealDirectory(engineDir);
  if (input.engine.source === "repository") engineDigest = sealedEngine.digest;

  const target = await targetDir(input.taskId);
  await mkdir(speculatorDir, { recursive: true });
  let speculatorDigest: string | null = null;
  let speculatorFiles: FetchedFile[] = [];
  let speculatorCommit: string | null = null;
  if (input.speculator) {
    const fetched = await fetchSpeculatorFromHub({
      hubBaseUrl: env().HUB_BASE_URL,
      repository: input.speculator.uri,
      revision: input.speculator.revision,
      dest: speculatorDir,
      maxBytes: Math.floor((await targetBytes(target)) * protocol.submission.speculatorMaxShareOfTarget),
      token: env().HUB_TOKEN,
    });
    speculatorFiles = fetched.files;
    speculatorCommit = fetched.commit;
  }
  const sealedSpeculator = await sealDirectory(speculatorDir);
  if (input.speculator) {
    // what was sealed is what was fetched and verified: a difference is the arena's own fault
    const sealedHashes = sealedSpeculator.files.map((f) => `${f.path}:${f.sha256}`).sort();
    const fetchedHashes = speculatorFiles.map((f) => `${f.path}:${f.sha256}`).sort();
    if (sealedHashes.join("\n") !== fetchedHashes.join("\n"))
      throw new Error("the sealed speculator differs from the files fetched from the Hub");
    speculatorDigest = sealedSpeculator.digest;
  }
  return {
    engineDir,
    speculatorDir,
    targetDir: target,
    engineDigest,
    speculatorCommit,
    speculatorDigest,
    speculatorFiles,
  };
}
