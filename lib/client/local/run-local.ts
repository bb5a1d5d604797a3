import { spawn, spawnSync } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { extractEngineArchive } from "../../engine-archive/extract-archive";
import { type ResultRecord, resultRecordSchema } from "../../gates/record/schema";
import { parseAgentLine } from "../../pods/agent/events";
import { claimEngineUser, type EngineUserClaim } from "../../pods/local/engine-user-claims";
import { getProfile, type TaskId } from "../../protocol";
import { QWEN3_TOKENIZER_FILES } from "../../tokenizer/packaged-qwen3";
import { checkTokenizerDir } from "../../tokenizer/target-tokenizer";
import type { ClientEnv } from "../client-env";
import { DEFAULT_ARCHIVE_LIMITS, packEngineDirectory } from "../engine-directory";
import { ClientError, EXIT } from "../exit-codes";
import { type Output, ProgressPrinter } from "../progress-printer";
import { formatGateLine, gateLines, scoreLines } from "./gate-lines";
import { kitLayout } from "./kit-layout";

export interface LocalRunOptions {
  task: TaskId;
  engine: string;
  speculator?: string;
  profile: string;
  target?: string;
  simSpeed: number;
  /** Print the result record as JSON on `out` (progress then goes to `err`). */
  json: boolean;
  env: ClientEnv;
  out: Output;
  err: Output;
  tty: boolean;
  signal?: AbortSignal;
}

export interface LocalRunResult {
  outcome: "scored" | "failed" | "void" | "error";
  reason: string | null;
  record: ResultRecord | null;
  exitCode: number;
}

const SPECULATOR_FILE = /\.(json|safetensors)$/;

/** Copies what the arena would fetch of a speculator (its *.json and *.safetensors, as the Hub fetch takes them). */
async function sealSpeculator(from: string, to: string): Promise<string[]> {
  const left: string[] = [];
  async function walk(dir: string, rel: string): Promise<void> {
    for (const name of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = rel ? `${rel}/${name.name}` : name.name;
      if (name.isDirectory()) await walk(join(dir, name.name), path);
      else if (name.isFile() && SPECULATOR_FILE.test(name.name)) {
        await mkdir(join(to, rel), { recursive: true, mode: 0o755 });
        await copyFile(join(dir, name.name), join(to, path));
      } else left.push(path);
    }
  }
  await walk(from, "");
  return left;
}

function vllmInstalled(path: string): boolean {
  return (
    spawnSync("sh", ["-c", "command -v vllm"], { env: { PATH: path } as unknown as NodeJS.ProcessEnv, stdio: "ignore" })
      .status === 0
  );
}

/**
 * `speculatorarena local`: what the arena runs, on this machine. The engine directory is packed and checked as a
 * submission's is, then unpacked as the arena unpacks it; the pod agent (the arena's own, from the kit or the
 * repository) plays the candidate and the stock engine through the timed workloads on the public dev pool and the
 * lossless checks, and its result record is printed gate by gate: ok, warn (passed within a quarter of its limit)
 * or FAIL, with the figure and the limit, then the ratios and SpecScore. The engines are vLLM where it is installed
 * and a target is given, the simulated engine otherwise.
 */
export async function runLocal(options: LocalRunOptions): Promise<LocalRunResult> {
  const { out, err } = options;
  const say = options.json ? err : out;
  const profile = getProfile(options.profile);
  if (!profile) throw new ClientError(EXIT.usage, `--profile: ${options.profile} is not a profile`);
  const layout = kitLayout();
  const packed = await packEngineDirectory(options.engine);
  if (options.speculator && !(await stat(options.speculator).catch(() => null))?.isDirectory()) {
    throw new ClientError(EXIT.usage, `--speculator ${options.speculator}: not a directory`);
  }
  if (options.target) {
    try {
      checkTokenizerDir(resolve(options.target));
    } catch (error) {
      throw new ClientError(EXIT.usage, `--target ${options.target}: ${(error as Error).message}`);
    }
  }
  const hasVllm = vllmInstalled(options.env.system.PATH);
  const runtime = options.target && hasVllm ? "vllm" : "sim";
  if (runtime === "sim" && options.target) {
    say.write("vLLM is not installed here: the simulated engines play, with the target's tokenizer\n");
  } else if (runtime === "sim" && hasVllm) {
    say.write("no --target given: the simulated engines play (give the target's directory to run vLLM)\n");
  }

  const base = await mkdtemp(join(tmpdir(), "speculatorarena-local-"));
  // the engine user, when there is one, reads the unpacked engine and the sealed inputs, as in a pod
  await chmod(base, 0o755);
  let claim: EngineUserClaim | null = null;
  try {
    const engineDir = join(base, "engine");
    await extractEngineArchive(packed.gz, engineDir, DEFAULT_ARCHIVE_LIMITS);
    const speculatorDir = join(base, "speculator");
    await mkdir(speculatorDir, { mode: 0o755 });
    if (options.speculator) {
      const left = await sealSpeculator(options.speculator, speculatorDir);
      if (left.length > 0) {
        say.write(
          `the arena fetches only *.json and *.safetensors: left out ${left.slice(0, 5).join(", ")}${left.length > 5 ? ` and ${left.length - 5} more` : ""}\n`,
        );
      }
    }
    let targetDir = options.target ? resolve(options.target) : join(base, "target");
    if (!options.target) {
      await mkdir(targetDir, { mode: 0o755 });
      for (const file of QWEN3_TOKENIZER_FILES) await copyFile(join(layout.tokenizerDir, file), join(targetDir, file));
    }
    targetDir = resolve(targetDir);
    say.write(
      `engine ${options.engine}: ${packed.files} files, ${packed.unpackedBytes.toLocaleString("en")} bytes, sha256 ${packed.sha256.slice(0, 12)}\n` +
        `running ${options.task} under profile ${profile.name} (${profile.passes} passes of ${Object.values(profile.passSeconds).join("/")} s) on the ${runtime === "sim" ? `simulated engines (SIM_SPEED ${options.simSpeed})` : "vLLM runtime"}\n`,
    );

    // As root, the agent runs engines as an unprivileged user and kills that user's processes between engines:
    // claim one no other pod on this host holds, as the arena's local pods do.
    if (process.getuid?.() === 0) claim = await claimEngineUser();
    const agentEnv: Record<string, string> = {
      ...options.env.system,
      HOME: options.env.system.HOME ?? base,
      ARENA_EVALUATION_ID: `local-${Date.now().toString(36)}`,
      ARENA_ATTEMPT: "1",
      ARENA_TASK: options.task,
      ARENA_PROFILE: profile.name,
      ARENA_SEED: String(Math.floor(Math.random() * 2 ** 31)),
      ARENA_ENGINE_DIR: engineDir,
      ARENA_SPECULATOR_DIR: speculatorDir,
      ARENA_TARGET_DIR: targetDir,
      ARENA_STOCK_ENGINE_DIR: runtime === "sim" ? layout.simStockEngineDir : layout.vllmStockEngineDir,
      ARENA_SCRATCH_DIR: join(base, "scratch"),
      ARENA_ENGINE_RUNTIME: runtime,
      ...(claim ? { ARENA_ENGINE_USER: claim.user } : {}),
      ...(runtime === "sim" ? { ARENA_SIM_ENGINE: layout.simEngine, SIM_SPEED: String(options.simSpeed) } : {}),
    };
    const child = spawn(layout.agent.command, layout.agent.args, {
      cwd: layout.agent.cwd,
      env: agentEnv as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (claim && child.pid !== undefined) await claim.holdFor(child.pid);
    // the agent stops its engines on SIGTERM: sent on Ctrl-C, and when this process exits first for any reason
    const onAbort = () => child.kill("SIGTERM");
    options.signal?.addEventListener("abort", onAbort);
    process.on("exit", onAbort);

    const printer = new ProgressPrinter(say, options.tty && !options.json);
    printer.passes = profile.passes;
    const stderrTail: string[] = [];
    const ended: {
      result: {
        outcome: "scored" | "failed" | "void";
        reason: string | null;
        record: unknown;
        logTail?: string;
      } | null;
    } = { result: null };
    createInterface({ input: child.stderr }).on("line", (line) => {
      stderrTail.push(line);
      if (stderrTail.length > 30) stderrTail.shift();
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      const event = parseAgentLine(line);
      if (!event) return;
      if (event.type === "result") ended.result = event;
      else {
        const { type, ...data } = event;
        printer.apply(type, data);
      }
    });
    const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)));
    options.signal?.removeEventListener("abort", onAbort);
    process.off("exit", onAbort);
    printer.clearBar();
    const got = ended.result;
    if (options.signal?.aborted) {
      return { outcome: "error", reason: "stopped", record: null, exitCode: EXIT.notScored };
    }
    if (!got) {
      say.write(`FAIL  the pod agent exited (${code}) without a result\n${stderrTail.join("\n")}\n`);
      return {
        outcome: "error",
        reason: "the pod agent ended without a result",
        record: null,
        exitCode: EXIT.notScored,
      };
    }
    const parsed = got.record === null ? null : resultRecordSchema.safeParse(got.record);
    const record = parsed?.success ? parsed.data : null;
    say.write("\n");
    if (record) {
      const lines = gateLines(record);
      for (const line of lines) say.write(`${formatGateLine(line)}\n`);
      for (const line of scoreLines(record)) say.write(`${line}\n`);
      if (options.json) out.write(`${JSON.stringify(record, null, 2)}\n`);
      const passed =
        got.outcome === "scored" && (record.specscore ?? 0) > 0 && lines.every((l) => l.verdict !== "FAIL");
      if (!passed && got.logTail) say.write(`the engine's last log lines:\n${got.logTail}\n`);
      return { outcome: got.outcome, reason: got.reason, record, exitCode: passed ? EXIT.ok : EXIT.notScored };
    }
    say.write(`FAIL  ${got.outcome}: ${got.reason ?? "no reason given"}\n`);
    if (got.logTail) say.write(`the engine's last log lines:\n${got.logTail}\n`);
    if (options.json) out.write(`${JSON.stringify({ outcome: got.outcome, reason: got.reason, record: null })}\n`);
    return { outcome: got.outcome, reason: got.reason, record: null, exitCode: EXIT.notScored };
  } finally {
    await claim?.release();
    await rm(base, { recursive: true, force: true }).catch(() => undefined);
  }
}
