import { chmod, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { extractEngineArchive } from "../engine-archive/extract-archive";
import { ArchiveError } from "../engine-archive/inspect-archive";
import { env } from "../env";
import { FetchError } from "../fetch/fetch-errors";
import { fetchEngineFromGit } from "../fetch/git-engine";
import { type FetchedFile, fetchSpeculatorFromHub } from "../fetch/hub-speculator";
import { sealDirectory } from "../fetch/seal-directory";
import { currentProtocol, type TaskId } from "../protocol";
import { dataDir, privateDataDir, targetBytes, targetDir } from "./runtime";

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

/** Where an evaluation's sealed inputs live, every attempt's: inside the root-only data folder. */
function evaluationFolder(evaluationId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(evaluationId))
    throw new Error(`an evaluation id unfit for a folder's name: ${evaluationId}`);
  return join(dataDir(), "evaluations", evaluationId);
}

/**
 * Fetches the engine and the speculator and seals both read-only, before any engine code runs. They are sealed
 * inside the root-only data folder: a pod sees its own through bind mounts, and no engine sees another's.
 */
export async function sealInputs(input: SubmissionInputs): Promise<SealedInputs> {
  // an arena's data folder left world-readable by an older version is closed first (a failure surfaces below)
  await privateDataDir("evaluations").catch(() => undefined);
  const root = join(evaluationFolder(input.evaluationId), `a${input.attempt}`);
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

/**
 * Deletes an evaluation's sealed inputs, every attempt's (protocol section 9: no other evaluation can read them, and
 * once it has ended nothing needs them). Safe to call twice, and for an evaluation that sealed nothing.
 */
export async function removeSealedInputs(evaluationId: string): Promise<void> {
  const folder = evaluationFolder(evaluationId);
  // sealed folders are read-only (0555): their owner, when it is not root, must open them before it can empty them
  const open = async (dir: string): Promise<void> => {
    await chmod(dir, 0o700).catch(() => undefined);
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory()) await open(join(dir, entry.name));
    }
  };
  if (process.getuid?.() !== 0) await open(folder);
  await rm(folder, { recursive: true, force: true });
}
