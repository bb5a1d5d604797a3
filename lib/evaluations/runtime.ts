import { randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { env } from "../env";
import { getTask, type TaskId } from "../protocol";
import { copyQwen3TokenizerFiles } from "../tokenizer/packaged-qwen3";
import { checkTokenizerDir, TOKENIZER_FILE } from "../tokenizer/target-tokenizer";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Simulated targets state their size, as if they held the real checkpoint's safetensors. */
const SIMULATED_TARGET_BYTES: Record<TaskId, number> = {
  "qwen3-8b": 16_381_470_720,
  "qwen35-27b": 55_610_000_000,
};

export function repoRoot(): string {
  return REPO_ROOT;
}

export function dataDir(): string {
  return resolve(REPO_ROOT, env().ARENA_DATA_DIR);
}

/**
 * The arena's data folder, made root-only (its owner's only: 0700) whatever an older arena left: every evaluation's
 * sealed inputs, the pools and the pods' work folders live in it, and no engine may list or read any of them (a local
 * pod sees its own inputs through bind mounts, lib/pods/sandbox). A folder under it may be given as well.
 */
export async function privateDataDir(...under: string[]): Promise<string> {
  const root = dataDir();
  let path = root;
  for (const part of ["", ...under]) {
    path = part === "" ? root : join(path, part);
    await mkdir(path, { recursive: true, mode: 0o700 });
    await chmod(path, 0o700);
  }
  return path;
}

/** The stock engine's directory: the simulated engine's stock mode on the embedded default, the pinned vLLM otherwise. */
export function stockEngineDir(): string {
  const override = env().STOCK_ENGINE_DIR;
  if (override) return resolve(REPO_ROOT, override);
  return env().ENGINE_RUNTIME === "sim"
    ? join(REPO_ROOT, "lib/sim-engine/engines/stock")
    : join(REPO_ROOT, "lib/pods/stock-engines/vllm");
}

/**
 * The sealed target of a task, which is also its tokenizer directory (`TOKENIZER`): the judge counts with it and
 * the checks render with it. With real engines it is the operators' checkpoint directory, and must hold the
 * tokenizer files (an error names what it lacks). On the embedded default it is made once: Qwen3's tokenizer files,
 * unless the directory holds a tokenizer.json of its own (a test's target, kept as it is), and a note of the size
 * it stands for.
 */
export async function targetDir(taskId: TaskId): Promise<string> {
  const base = env().TARGETS_DIR ? resolve(env().TARGETS_DIR!) : await privateDataDir("targets");
  const dir = join(base, taskId);
  if (env().ENGINE_RUNTIME === "sim") await makeSimulatedTarget(taskId, dir);
  try {
    checkTokenizerDir(dir);
  } catch (error) {
    throw new Error(`the target of ${taskId} cannot be judged: ${(error as Error).message}`);
  }
  return dir;
}

async function makeSimulatedTarget(taskId: TaskId, dir: string): Promise<void> {
  const marker = join(dir, "arena-target.json");
  await mkdir(dir, { recursive: true });
  if (!(await stat(join(dir, TOKENIZER_FILE)).catch(() => null))) await copyQwen3TokenizerFiles(dir);
  if (!(await stat(marker).catch(() => null))) {
    const task = getTask(taskId);
    // written aside and renamed into place: another evaluation's read of it never finds it half written
    const aside = `${marker}.${process.pid}-${randomBytes(4).toString("hex")}`;
    await writeFile(
      aside,
      JSON.stringify({
        simulated: true,
        task: taskId,
        repository: task.target.repository,
        bytes: SIMULATED_TARGET_BYTES[taskId],
      }),
    );
    await rename(aside, marker);
  }
}

/** The target's bytes: its safetensors on disk, or the size a simulated target stands for. */
export async function targetBytes(dir: string): Promise<number> {
  const marker = await readFile(join(dir, "arena-target.json"), "utf8").catch(() => null);
  if (marker) return (JSON.parse(marker) as { bytes: number }).bytes;
  let total = 0;
  for (const name of await readdir(dir)) {
    if (name.endsWith(".safetensors")) total += (await stat(join(dir, name))).size;
  }
  return total;
}

/** The simulated engine's launcher, which every simulated engine directory's launch.sh execs. */
export function simEngineCommand(): string {
  return join(REPO_ROOT, "lib/sim-engine/bin/sim-engine");
}

/**
 * The session pool an evaluation plays: the public dev pool for `dev`; for `test` the operators' hidden pool,
 * or on the embedded default one cut once from the held-out share of the public data (never in the repository), and on
 * a fresh clone without it, one held out of the shipped dev pool by its own key (labelled so: public text, not hidden).
 */
export async function poolPathFor(split: "dev" | "test"): Promise<string | undefined> {
  if (split === "dev") return undefined;
  const configured = env().TEST_POOL_PATH;
  if (configured) return resolve(REPO_ROOT, configured);
  const pools = await privateDataDir("pools");
  let path = join(pools, "test.jsonl");
  if (!(await stat(path).catch(() => null))) {
    const source = resolve(REPO_ROOT, env().PUBLIC_DATA_DIR);
    if (await stat(source).catch(() => null)) {
      const { makeTestPool } = await import("../judge/pool/test-pool");
      makeTestPool(source, path);
    } else {
      // a fresh clone has no public data beside it: a test pool held out of the shipped dev pool by its own key
      const { EMBEDDED_TEST_POOL_FILE, makeEmbeddedTestPool } = await import("../judge/pool/embedded-test-pool");
      path = join(pools, EMBEDDED_TEST_POOL_FILE);
      if (!(await stat(path).catch(() => null))) makeEmbeddedTestPool(path);
    }
  }
  // hidden data: a local pod's agent (root) reads it, no engine user may; a Kubernetes pod's agent runs under a uid of
  // its own and reads it through its subPath mount, which the file's mode must then allow
  if (env().POD_BACKEND === "local") await chmod(path, 0o600);
  return path;
}
