import { basename, join } from "node:path";
import { type DeviceProbe, parseNvidiaSmi } from "../agent/device-probe";
import { FALLBACK_LOGIN } from "../agent/engine-login";
import type { EngineStart, RunningEngine } from "../agent/engine-process";
import type { EngineIdentity } from "../agent/engine-user";
import type { AgentEvent } from "../agent/events";
import {
  INSTALLER_KEEP_LINES,
  INSTALLER_LINE_CHARS,
  installerOutcome,
  PLUGIN_INSTALL_TIMEOUT_MS,
  type PluginInstallInput,
  type PluginInstallResult,
  pluginInstallCommand,
} from "../agent/plugin-install";
import { LauncherClient, type LauncherExit, LauncherLostError, type LauncherReply } from "./launcher-client";
import { type EngineContainerConfig, parseEngineContainerConfig } from "./paths";

const LOG_KEEP = 2000;

/** A start as the local path describes it; its identity is the engine container's own uid, so it is not used. */
export type ContainerEngineStart = Omit<EngineStart, "identity" | "onLog"> & { identity?: EngineIdentity };

/**
 * Engines in the pod's other container, started by its launcher (engine-launcher.py) as the run-pod loop starts local
 * ones: the same RunningEngine, the same stop (SIGTERM to the group, SIGKILL after the grace, then every process of the
 * container killed and its scratch emptied), the same plugin/ install. Paths are the engine container's.
 */
export class ContainerEngines {
  /** USER and LOGNAME: the engine container's uid has no passwd entry in the engine image. */
  readonly login = FALLBACK_LOGIN;
  readonly scratchRoot: string;
  readonly noSpeculatorDir: string;
  /** Where a simulated engine writes its device's memory (in its own scratch; the launcher reads it). */
  readonly deviceFile: string;
  /** Each running engine's start, by which the launcher knows it. */
  private readonly startIds = new WeakMap<RunningEngine, string>();

  constructor(
    private readonly launcher: LauncherClient,
    config: EngineContainerConfig,
  ) {
    this.scratchRoot = config.scratch;
    this.noSpeculatorDir = config.noSpeculator;
    this.deviceFile = join(config.scratch, "device", "simulated-device.csv");
  }

  get uid(): number {
    return this.launcher.hello.uid;
  }

  /** Makes the device folder a simulated engine writes to: every stop empties the scratch. */
  private async prepare(): Promise<void> {
    const reply = await this.launcher.request("mkdir", { path: join(this.scratchRoot, "device") });
    if (!reply.ok) throw new Error(`the engine container could not make its device folder: ${reply.error}`);
  }

  async start(start: ContainerEngineStart): Promise<RunningEngine> {
    await this.prepare();
    const log: string[] = [];
    const keep = (line: string) => {
      log.push(line);
      if (log.length > LOG_KEEP) log.splice(0, log.length - LOG_KEEP);
    };
    let ended: LauncherExit | null = null;
    let settle!: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      settle = resolve;
    });
    const reply = await this.launcher.request(
      "start",
      {
        name: start.name ?? basename(start.scratchDir),
        argv: ["bash", join(start.engineDir, "launch.sh"), "serve"],
        env: start.env,
        cwd: start.scratchDir,
      },
      {
        onLine: (_stream, text) => keep(text),
        onExit: (exit) => {
          ended = exit;
          settle({ code: exit.code, signal: exit.signal as NodeJS.Signals | null });
        },
      },
    );
    if (!reply.ok) {
      keep(`failed to start launch.sh: ${reply.error}`);
      ended = { code: -1, signal: null };
      settle({ code: -1, signal: null });
    }
    const engine: RunningEngine = {
      role: start.role,
      url: `http://127.0.0.1:${start.env.PORT}`,
      exited,
      log,
      logTail: (lines = 60) => log.slice(-lines).join("\n"),
      hasExited: () => ended !== null,
    };
    if (reply.ok) this.startIds.set(engine, reply.id);
    return engine;
  }

  /**
   * Stops an engine as the protocol says (SIGTERM to its process group, SIGKILL after the grace period), then has the
   * launcher kill every other process of the engine container, wait until none is left, and empty its /tmp,
   * /dev/shm and scratch. A launcher that is gone has taken every engine process with it.
   */
  async stop(engine: RunningEngine, graceMs: number): Promise<void> {
    const id = this.startIds.get(engine);
    try {
      if (id !== undefined && !engine.hasExited()) {
        await this.launcher.request("signal", { start: id, signal: "SIGTERM" });
        const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), graceMs).unref());
        if ((await Promise.race([engine.exited, timeout])) === "timeout")
          await this.launcher.request("signal", { start: id, signal: "SIGKILL" });
      }
      await this.killAll(true);
    } catch (error) {
      if (!(error instanceof LauncherLostError)) throw error;
    }
  }

  private async killAll(clear: boolean): Promise<void> {
    const reply = await this.launcher.request("kill-all", { clear });
    if (!reply.ok) throw new Error(`the engine container could not be cleaned up: ${reply.error}`);
  }

  /** plugin/ installed as the local path installs it (lib/pods/agent/plugin-install.ts), in the engine container. */
  async installPlugin(
    input: Omit<PluginInstallInput, "identity"> & { identity?: EngineIdentity },
  ): Promise<PluginInstallResult> {
    await this.prepare();
    const copy = join(input.scratchDir, "plugin-source");
    const copied = await this.launcher.request("copy-plugin", {
      source: join(input.engineDir, "plugin"),
      destination: copy,
    });
    if (!copied.ok) throw new Error(`the engine container could not copy plugin/: ${copied.error}`);
    if (copied.status === "none") return { status: "none" };
    if (copied.status === "refused") return { status: "failed", why: String(copied.why), log: [] };

    const { command, args, env } = pluginInstallCommand(input.runtime, input.env, copy);
    const log: string[] = [`$ ${[command, ...args].join(" ")}`];
    const keep = (line: string) => {
      log.push(line.length > INSTALLER_LINE_CHARS ? `${line.slice(0, INSTALLER_LINE_CHARS)}…` : line);
      if (log.length > INSTALLER_KEEP_LINES) log.splice(1, log.length - INSTALLER_KEEP_LINES);
    };
    let settle!: (exit: LauncherExit) => void;
    const exited = new Promise<LauncherExit>((resolve) => {
      settle = resolve;
    });
    const started = await this.launcher.request(
      "start",
      { name: "plugin-install", argv: [command, ...args], env, cwd: input.scratchDir },
      { onLine: (_s, text) => keep(text), onExit: settle },
    );
    if (!started.ok) return { status: "unavailable", why: `the installer ${command} did not start: ${started.error}` };
    const timeoutMs = input.timeoutMs ?? PLUGIN_INSTALL_TIMEOUT_MS;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void this.launcher.request("signal", { start: started.id, signal: "SIGKILL" }).catch(() => undefined);
    }, timeoutMs);
    const ended = await exited;
    clearTimeout(timer);
    // whatever the installer left running must not outlive it; what it installed (in HOME) stays for the engine
    await this.killAll(false);

    return installerOutcome(ended, timedOut, timeoutMs, log);
  }

  /**
   * The device's memory, read by the launcher from outside the engines: NVML (the GPU is the engine container's), or
   * the simulated engine's file, as the local probes read nvidia-smi or that file.
   */
  async device(
    kind: "auto" | "nvidia" | "simulated",
    simulatedTotalMib: number,
  ): Promise<{ probe: DeviceProbe; kind: "nvidia" | "simulated" }> {
    const nvml: DeviceProbe = async () => {
      const text = readText(await this.launcher.request("device"));
      if (text === null) throw new Error("NVML answered nothing");
      return parseNvidiaSmi(text);
    };
    // the simulated engine's file, absent while no engine holds the device (as simulatedDeviceProbe reads it)
    const simulated: DeviceProbe = async () => {
      const text = readText(await this.launcher.request("device", { file: this.deviceFile }));
      return text === null ? { usedMib: 0, totalMib: simulatedTotalMib } : parseNvidiaSmi(text);
    };
    if (kind === "simulated") return { probe: simulated, kind: "simulated" };
    if (kind === "nvidia") return { probe: nvml, kind: "nvidia" };
    try {
      await nvml();
      return { probe: nvml, kind: "nvidia" };
    } catch (error) {
      if (error instanceof LauncherLostError) throw error;
      return { probe: simulated, kind: "simulated" };
    }
  }

  /** The pod is over: the launcher kills every engine process and exits. */
  close(): void {
    this.launcher.close();
  }
}

/** A device reading's text (nvidia-smi's csv line), or null where the simulated device has no file yet. */
function readText(reply: LauncherReply): string | null {
  if (!reply.ok) throw new Error(`the device could not be read: ${reply.error}`);
  return typeof reply.text === "string" ? reply.text : null;
}

/**
 * The pod's engine container, once its launcher has connected and shown it can keep the engines in hand (PID 1 of
 * its container). Null, with the evaluation void (the arena's fault, refunded) and said why, when it cannot.
 */
export async function openContainerEngines(
  raw: string,
  emit: (event: AgentEvent) => void,
): Promise<ContainerEngines | null> {
  const voidWith = (reason: string, detail: string) => {
    emit({ type: "log", level: "error", message: detail });
    emit({ type: "result", outcome: "void", reason, record: null });
    return null;
  };
  let config: EngineContainerConfig;
  let launcher: LauncherClient;
  try {
    config = parseEngineContainerConfig(raw);
    launcher = await LauncherClient.accept(config.socket, config.acceptSeconds * 1000);
  } catch (error) {
    return voidWith("the engine container did not start", (error as Error).message);
  }
  const { hello } = launcher;
  if (hello.pid !== 1) {
    launcher.close();
    return voidWith(
      "the engine container is misconfigured",
      `the engine container's launcher is pid ${hello.pid}, not its container's PID 1: engine processes could outlive their engine`,
    );
  }
  emit({
    type: "log",
    level: hello.undumpable ? "info" : "warn",
    message: `engines run in their own container as uid ${hello.uid}, started by its PID 1${hello.undumpable ? "" : ", which could not make itself non-dumpable"}`,
  });
  return new ContainerEngines(launcher, config);
}
