import { type ChildProcess, spawn } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../testing/until";
import { livePidsOf } from "../agent/engine-user";
import { VLLM_PLUGIN_FIXTURES } from "../testing/stand-in-vllm";
import { ContainerEngines } from "./container-engines";
import { LauncherClient, LauncherLostError } from "./launcher-client";
import { LAUNCHER_FILE } from "./paths";

// The launcher as a Kubernetes engine container runs it: PID 1 of its own PID namespace, under a uid of its own that
// no other process uses (tests run as root, as CI does), talking to the agent's end over a real Unix socket.
const UID = 61301;
const LAUNCHER = join(import.meta.dirname, LAUNCHER_FILE);

let root: string;
let launcher: ChildProcess | null = null;
let output: string[] = [];
let client: LauncherClient | null = null;
let runs = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "engine-launcher-"));
  await chmod(root, 0o755);
});

afterEach(async () => {
  client?.close();
  client = null;
  if (launcher && launcher.exitCode === null && launcher.signalCode === null) {
    const ended = new Promise((r) => launcher!.once("exit", r));
    launcher.kill("SIGKILL");
    await ended;
  }
  launcher = null;
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A container's folders (its /tmp and /dev/shm stand-ins, its scratch, the exchange) and the launcher on them. */
async function startLauncher(): Promise<{ dir: string; tmp: string; shm: string; scratch: string }> {
  const dir = join(root, `run-${++runs}`);
  const [tmp, shm, scratch, exchange] = ["tmp", "shm", "scratch", "exchange"].map((n) => join(dir, n)) as [
    string,
    string,
    string,
    string,
  ];
  for (const d of [tmp, shm, scratch, exchange]) {
    await mkdir(d, { recursive: true });
    await chmod(d, 0o777);
  }
  await chmod(dir, 0o755);
  const socket = join(exchange, "launcher.sock");
  const accepted = LauncherClient.accept(socket, 20_000);
  output = [];
  const child = spawn(
    "unshare",
    [
      "--pid",
      "--fork",
      "--mount",
      "--mount-proc",
      "--kill-child",
      "--",
      "setpriv",
      `--reuid=${UID}`,
      `--regid=${UID}`,
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
      "--",
      "/usr/bin/python3",
      "-I",
      "-S",
      LAUNCHER,
    ],
    {
      env: {
        PATH: "/usr/bin:/bin",
        ARENA_LAUNCHER_SOCKET: socket,
        ARENA_LAUNCHER_CLEAR: [tmp, shm, scratch].join(":"),
        ARENA_LAUNCHER_WAIT_SECONDS: "20",
      } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  launcher = child;
  for (const stream of [child.stdout!, child.stderr!])
    createInterface({ input: stream }).on("line", (line) => {
      if (line) output.push(line);
    });
  client = await accepted;
  return { dir, tmp, shm, scratch };
}

function run(argv: string[], cwd: string, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    void client!
      .request(
        "start",
        { name: "test", argv, env, cwd },
        { onLine: (s, t) => lines.push(`${s}:${t}`), onExit: resolve },
      )
      .then((reply) => {
        if (!reply.ok) resolve({ code: -1, signal: reply.error ?? null });
      });
  });
  return { lines, exited };
}

describe("the engine container's launcher", () => {
  it("greets as PID 1 of its container, under its uid, non-dumpable", async () => {
    await startLauncher();
    expect(client!.hello).toMatchObject({ t: "hello", pid: 1, uid: UID, gid: UID, undumpable: true });
    // nothing else can connect: the socket is gone once the launcher is in
    await expect(readdir(join(root, `run-${runs}`, "exchange"))).resolves.toEqual([]);
  });

  it("runs a start with the agent's environment but its own PATH, relays its lines in order and its exit", async () => {
    const { scratch } = await startLauncher();
    const cwd = join(scratch, "candidate-1");
    const script = 'echo "out $FOO $PATH $(pwd)"; echo "err line" >&2; printf "no newline"; exit 3';
    const { lines, exited } = run(["bash", "-c", script], cwd, { FOO: "bar", PATH: "/agent/only" });
    expect(await exited).toEqual({ code: 3, signal: null });
    expect(lines).toContain(`o:out bar /usr/bin:/bin ${cwd}`);
    expect(lines).toContain("e:err line");
    expect(lines).toContain("o:no newline");
    // the operators' copy: the container's own output, each line under its start's name (its own pipe: it may come
    // after the exit the socket relayed)
    const copied = `test out bar /usr/bin:/bin ${cwd}`;
    await until(async () => (output.includes(copied) ? true : undefined), 10_000, 20);
    expect(output).toContain(copied);
    const missing = run(["no-such-launch-command"], cwd);
    expect(await missing.exited).toEqual({ code: -1, signal: "spawn ENOENT" });
  });

  it("keeps answering when engines end as their output does: an exit and its pipes' end in one wake-up", async () => {
    const { scratch } = await startLauncher();
    // each ends the moment its line is written: its exit and its pipes' end often come back from one select()
    const ends = await Promise.all(
      Array.from({ length: 60 }, (_, i) => run(["bash", "-c", `echo ${i}`], join(scratch, `quick-${i}`)).exited),
    );
    expect(ends.every((e) => e.code === 0)).toBe(true);
    expect(client!.isLost).toBe(false);
    const after = run(["bash", "-c", "echo still here"], join(scratch, "after"));
    expect(await after.exited).toEqual({ code: 0, signal: null });
    expect(after.lines).toEqual(["o:still here"]);
  });

  it("kills every process the engines left (detached, double-forked), waits until none is left, and empties its folders", async () => {
    const { tmp, shm, scratch } = await startLauncher();
    // a System V segment outlives its process: the pod's containers share one IPC namespace
    const segment = `/usr/bin/python3 -c "import ctypes; print(ctypes.CDLL(None).shmget(0, 4096, 0o1600))"`;
    const detach = [
      segment,
      "setsid sleep 300 &",
      "nohup sleep 301 >/dev/null 2>&1 &",
      "(setsid bash -c 'sleep 302' &) &",
      `echo left > ${tmp}/leftover; echo left > ${shm}/leftover; mkdir -p ${scratch}/candidate-1/.cache`,
      "echo ready",
    ].join("\n");
    const { exited } = run(["bash", "-c", detach], join(scratch, "candidate-1"));
    expect(await exited).toEqual({ code: 0, signal: null });
    await new Promise((r) => setTimeout(r, 200));
    const segments = async () =>
      (await readFile("/proc/sysvipc/shm", "utf8"))
        .split("\n")
        .slice(1)
        .filter((line) => line.trim().split(/\s+/)[7] === String(UID));
    expect(await segments()).toHaveLength(1);
    expect((await livePidsOf(UID)).length).toBeGreaterThanOrEqual(4);
    const reply = await client!.request("kill-all", { clear: true });
    // three folders' leftovers and the segment
    expect(reply).toMatchObject({ ok: true, removed: 4 });
    expect(await segments()).toEqual([]);
    expect(reply.killed).toBeGreaterThanOrEqual(3);
    // from outside the container: nothing of the engine's uid is left but the launcher itself
    expect((await livePidsOf(UID)).length).toBe(1);
    for (const dir of [tmp, shm, scratch]) expect(await readdir(dir)).toEqual([]);
    // and it still answers
    expect((await client!.request("mkdir", { path: join(scratch, "device") })).ok).toBe(true);
  });

  it("cannot be killed, stopped or read by what it runs: SIGKILL and SIGSTOP to PID 1 are dropped, its memory and environment closed", async () => {
    const { scratch } = await startLauncher();
    const attack = [
      "kill -KILL 1 && echo killed-sent",
      "kill -STOP 1 && echo stop-sent",
      "cat /proc/1/environ >/dev/null 2>&1 && echo environ-read || echo environ-refused",
      "ls /proc/1/fd >/dev/null 2>&1 && echo fds-listed || echo fds-refused",
    ].join("\n");
    const { lines, exited } = run(["bash", "-c", attack], join(scratch, "attacker"));
    await exited;
    // kill(2) may say yes: the kernel drops, for a PID namespace's init, every signal it has no handler for
    expect(lines).toEqual(["o:killed-sent", "o:stop-sent", "o:environ-refused", "o:fds-refused"]);
    expect((await client!.request("mkdir", { path: join(scratch, "alive") })).ok).toBe(true);
    expect(launcher!.exitCode).toBeNull();
  });

  it("ends with the agent's connection, and takes every engine process with it", async () => {
    const { scratch } = await startLauncher();
    const { exited } = run(["bash", "-c", "setsid sleep 300 & echo ok"], join(scratch, "candidate-1"));
    await exited;
    expect((await livePidsOf(UID)).length).toBe(2);
    const ended = new Promise<number | null>((r) => launcher!.once("exit", (code) => r(code)));
    client!.close();
    expect(await ended).toBe(0);
    expect(await livePidsOf(UID)).toEqual([]);
    await expect(client!.closed).resolves.toBeInstanceOf(LauncherLostError);
    await expect(client!.request("mkdir", { path: "/x" })).rejects.toBeInstanceOf(LauncherLostError);
  });

  it("copies plugin/ as the local path does (links refused), and reads the device: the simulated file, or NVML", async () => {
    const { scratch, dir } = await startLauncher();
    const engine = join(dir, "engine");
    await mkdir(join(engine, "plugin", "pkg"), { recursive: true });
    await writeFile(join(engine, "plugin", "setup.py"), "print('x')\n", { mode: 0o644 });
    await writeFile(join(engine, "plugin", "pkg", "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    const copied = await client!.request("copy-plugin", {
      source: join(engine, "plugin"),
      destination: join(scratch, "s", "plugin-source"),
    });
    expect(copied).toMatchObject({ ok: true, status: "copied", files: 2 });
    expect(await readFile(join(scratch, "s", "plugin-source", "setup.py"), "utf8")).toBe("print('x')\n");
    await symlink("/etc/passwd", join(engine, "plugin", "pkg", "passwd"));
    const refused = await client!.request("copy-plugin", {
      source: join(engine, "plugin"),
      destination: join(scratch, "s2", "plugin-source"),
    });
    expect(refused).toMatchObject({
      ok: true,
      status: "refused",
      why: "plugin/pkg/passwd is a link; links are not allowed",
    });
    expect(
      await client!.request("copy-plugin", { source: join(engine, "none"), destination: join(scratch, "n") }),
    ).toMatchObject({
      status: "none",
    });

    await writeFile(join(scratch, "device.csv"), "40960, 183359\n");
    expect(await client!.request("device", { file: join(scratch, "device.csv") })).toMatchObject({
      ok: true,
      text: "40960, 183359\n",
    });
    expect(await client!.request("device", { file: join(scratch, "absent.csv") })).toMatchObject({
      ok: true,
      text: null,
    });
    // no GPU here: NVML's library is not there, and the reply says so
    const nvml = await client!.request("device");
    expect(nvml.ok).toBe(false);
    expect(nvml.error).toMatch(/libnvidia-ml/);
  });
});

describe("engines in the engine container (ContainerEngines)", () => {
  it("stops an engine with SIGTERM to its group, SIGKILL after the grace, then kills its leftovers and empties scratch", async () => {
    const { scratch, dir } = await startLauncher();
    const engines = new ContainerEngines(client!, {
      socket: "",
      scratch,
      noSpeculator: join(dir, "empty"),
      acceptSeconds: 1,
    });
    const engineDir = join(dir, "stubborn");
    await mkdir(engineDir);
    // ignores SIGTERM, as an engine that will not stop does; leaves a detached process behind
    await writeFile(
      join(engineDir, "launch.sh"),
      "trap '' TERM\nsetsid sleep 300 &\necho serving\nwhile true; do sleep 0.1; done\n",
      { mode: 0o755 },
    );
    const engine = await engines.start({
      role: "candidate",
      engineDir,
      scratchDir: join(scratch, "candidate-1"),
      env: { PORT: "45123" },
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(engine.hasExited()).toBe(false);
    expect(engine.log).toContain("serving");
    expect(engine.url).toBe("http://127.0.0.1:45123");
    const started = Date.now();
    await engines.stop(engine, 500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(await engine.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect((await livePidsOf(UID)).length).toBe(1);
    expect(await readdir(scratch)).toEqual([]);
  });

  it("installs plugin/ with pip --user as the engine container's uid, and refuses a broken one with pip's words", async () => {
    const { scratch, dir } = await startLauncher();
    const engines = new ContainerEngines(client!, { socket: "", scratch, noSpeculator: dir, acceptSeconds: 1 });
    const engineDir = join(dir, "engine");
    await mkdir(engineDir);
    await cp(join(VLLM_PLUGIN_FIXTURES, "arena-probe"), join(engineDir, "plugin"), { recursive: true });
    const home = join(scratch, "candidate-1");
    const installed = await engines.installPlugin({
      runtime: "vllm",
      engineDir,
      scratchDir: home,
      env: { HOME: home, TMPDIR: home },
    });
    expect(installed.status, JSON.stringify(installed)).toBe("installed");
    const site = await readdir(join(home, ".local", "lib"));
    expect(site.some((name) => name.startsWith("python3"))).toBe(true);

    const broken = join(dir, "broken");
    await mkdir(join(broken, "plugin"), { recursive: true });
    await writeFile(join(broken, "plugin", "setup.py"), "raise SystemExit('this plugin refuses to build')\n");
    const failed = await engines.installPlugin({
      runtime: "vllm",
      engineDir: broken,
      scratchDir: join(scratch, "candidate-2"),
      env: { HOME: join(scratch, "candidate-2") },
    });
    expect(failed.status).toBe("failed");
    expect(failed.status === "failed" && failed.why).toMatch(/^the installer exited with 1: /);
    expect(await engines.installPlugin({ runtime: "vllm", engineDir: dir, scratchDir: home, env: {} })).toEqual({
      status: "none",
    });
  });
});
