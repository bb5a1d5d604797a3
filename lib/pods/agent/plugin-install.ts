import { spawn } from "node:child_process";
import { chown, lstat, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { lineSplitter } from "../async-queue";
import { ENTER_NOT_FOUND, engineCommand } from "../sandbox/engine-command";
import { type EngineIdentity, killUserProcesses } from "./engine-user";
import { copyPluginTree, PluginCopyError } from "./plugin-copy";

export type EngineRuntime = "sim" | "vllm";

/** How long a `plugin/` may take to install: a plugin builds with the standard library alone, in seconds. */
export const PLUGIN_INSTALL_TIMEOUT_MS = 10 * 60 * 1000;

/** The installer's lines kept for the failure page; the reason quotes its error lines. */
export const INSTALLER_KEEP_LINES = 200;
const REASON_LINES = 6;
export const INSTALLER_LINE_CHARS = 1000;

export interface PluginInstallInput {
  runtime: EngineRuntime;
  /** The candidate's sealed engine directory; its `plugin/`, if any, is installed. */
  engineDir: string;
  /** The start's scratch: the engine's HOME, where the user site lands. */
  scratchDir: string;
  /** The engine's environment (engineEnv's): the installer runs with exactly what `launch.sh serve` gets. */
  env: Record<string, string>;
  identity: EngineIdentity;
  timeoutMs?: number;
}

export type PluginInstallResult =
  | { status: "none" }
  | { status: "installed"; summary: string; log: string[] }
  | { status: "failed"; why: string; log: string[] }
  /** The installer itself could not run (the image lacks it): the arena's fault, not the submission's. */
  | { status: "unavailable"; why: string };

/**
 * The installer's command line, as LowBArena installs `plugin/` (its guide, "Plugins"): on vLLM, pip into the
 * engine user's site, offline and without dependencies; on the simulated runtime, the simulated engine's own
 * installer. Both install into `$HOME`, which `launch.sh serve` then sees.
 */
export function pluginInstallCommand(
  runtime: EngineRuntime,
  env: Record<string, string>,
  pluginCopy: string,
): { command: string; args: string[]; env: Record<string, string> } {
  if (runtime === "sim") {
    const simEngine = env.ARENA_SIM_ENGINE;
    if (!simEngine) throw new Error("the simulated runtime's environment names no ARENA_SIM_ENGINE");
    return { command: simEngine, args: ["install-plugin", pluginCopy], env };
  }
  return {
    command: "python3",
    args: [
      "-m",
      "pip",
      "install",
      "--user",
      "--no-index",
      "--no-deps",
      "--no-cache-dir",
      "--disable-pip-version-check",
      "--no-input",
      "--no-warn-script-location",
      pluginCopy,
    ],
    // A distribution's Python (Debian's, Ubuntu's) marks itself externally managed and refuses even `--user`
    // installs; this one lands in the engine's own throwaway user site, never in the image's.
    env: { ...env, PIP_BREAK_SYSTEM_PACKAGES: "1" },
  };
}

/** An installer's line that says what went wrong: pip's `ERROR:`/`error:` lines, a Python exception's last line. */
const ERROR_LINE = /^(ERROR|error)[: ]|^[A-Za-z_.]*(Error|Exception):/;

/**
 * The installer's words for the reason: its error lines, the last few of them without repeats (pip prints the
 * cause in the middle and generic notes at its end); its last lines where it printed none.
 */
export function installerMessage(output: readonly string[], count = REASON_LINES): string {
  const lines = output.map((line) => line.trim()).filter((line) => line !== "");
  const errors = [...new Set(lines.filter((line) => ERROR_LINE.test(line)))];
  return (errors.length > 0 ? errors : lines).slice(-count).join(" | ");
}

/**
 * Installs the candidate's `plugin/` before a start, as the engine user with the engine's environment: the
 * sealed directory is copied into the start's scratch, then installed from there. A failure is the
 * submission's ("failed", with the installer's words), unless the installer itself is missing.
 */
export async function installPlugin(input: PluginInstallInput): Promise<PluginInstallResult> {
  const source = join(input.engineDir, "plugin");
  const info = await lstat(source).catch(() => null);
  if (!info) return { status: "none" };
  if (!info.isDirectory()) return { status: "failed", why: "plugin is not a directory", log: [] };

  const { identity } = input;
  await mkdir(input.scratchDir, { recursive: true });
  if (identity.uid !== null) await chown(input.scratchDir, identity.uid, identity.gid!);
  const copy = join(input.scratchDir, "plugin-source");
  try {
    await copyPluginTree(source, copy, identity);
  } catch (error) {
    if (error instanceof PluginCopyError) return { status: "failed", why: error.message, log: [] };
    throw error;
  }

  const { command, args, env } = pluginInstallCommand(input.runtime, input.env, copy);
  const commandLine = `$ ${[command, ...args].join(" ")}`;
  const log: string[] = [commandLine];
  const keep = (line: string) => {
    log.push(line.length > INSTALLER_LINE_CHARS ? `${line.slice(0, INSTALLER_LINE_CHARS)}…` : line);
    if (log.length > INSTALLER_KEEP_LINES) log.splice(1, log.length - INSTALLER_KEEP_LINES);
  };
  // in the pod's engine cgroup where it has one: the installer runs the plugin's own build code
  const launch = engineCommand(identity, identity.sandbox?.cgroups ?? [], command, args);
  const child = spawn(launch.command, launch.args, {
    cwd: input.scratchDir,
    env: env as unknown as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...(launch.uid !== undefined ? { uid: launch.uid, gid: launch.gid! } : {}),
  });
  const out = lineSplitter(keep);
  const err = lineSplitter(keep);
  child.stdout!.on("data", (c: Buffer) => out.write(c));
  child.stderr!.on("data", (c: Buffer) => err.write(c));
  const timeoutMs = input.timeoutMs ?? PLUGIN_INSTALL_TIMEOUT_MS;
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is gone
    }
  };
  let timedOut = false;
  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: string }>((resolve) => {
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, error: error.message });
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
  // Whatever the installer left running (a build backend's own processes) must not outlive it; a process that
  // left the group could still hold the pipes open, so their last output is awaited only briefly.
  killGroup();
  await killUserProcesses(identity);
  await new Promise<void>((resolve) => {
    if (child.stdout!.readableEnded && child.stderr!.readableEnded) return resolve();
    const timer = setTimeout(resolve, 2000);
    child.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  out.flush();
  err.flush();

  if (launch.command !== command && ended.code === ENTER_NOT_FOUND) ended.error = "spawn ENOENT";
  if (ended.error) return { status: "unavailable", why: `the installer ${command} did not start: ${ended.error}` };
  return installerOutcome(ended, timedOut, timeoutMs, log);
}

/**
 * What an installer that ran means, wherever it ran (here, or in the engine's container): failed with its own last
 * lines when it timed out or exited non-zero, otherwise installed with its last line. `log[0]` is the command line.
 */
export function installerOutcome(
  ended: { code: number | null; signal: string | null },
  timedOut: boolean,
  timeoutMs: number,
  log: string[],
): Exclude<PluginInstallResult, { status: "none" } | { status: "unavailable" }> {
  if (timedOut)
    return {
      status: "failed",
      why: `the installer did not finish within ${Math.round(timeoutMs / 1000)} s: ${installerMessage(log.slice(1))}`,
      log,
    };
  if (ended.code !== 0)
    return {
      status: "failed",
      why: `the installer exited with ${ended.code ?? ended.signal}: ${installerMessage(log.slice(1))}`,
      log,
    };
  const output = log.slice(1).filter((line) => line.trim() !== "");
  return { status: "installed", summary: output.at(-1)?.trim() ?? "done", log };
}
