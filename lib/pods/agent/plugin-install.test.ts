import { spawnSync } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS } from "@/lib/sim-engine/spawn";
import { VLLM_PLUGIN_FIXTURES } from "../testing/stand-in-vllm";
import { engineEnv } from "./engine-env";
import { FALLBACK_LOGIN } from "./engine-login";
import type { EngineIdentity } from "./engine-user";
import { type EngineRuntime, installerMessage, installPlugin, pluginInstallCommand } from "./plugin-install";

// An unused uid with no passwd entry, as a pod's engine user may be (tests run as root); one per test file, since
// the installer kills every process of its engine user when it is done.
const UID = 61235;
const engineUser: EngineIdentity = { uid: UID, gid: UID, name: null };
const SYSTEM_PATH = "/usr/bin:/bin";

let root: string;
let scratches = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "plugin-install-"));
  await chmod(root, 0o755);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A sealed engine directory (read-only, as the arena mounts it) whose plugin/ is a copy of `plugin`. */
async function sealedEngine(name: string, plugin: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir);
  await writeFile(join(dir, "launch.sh"), '#!/usr/bin/env bash\nexec vllm serve "$TARGET"\n', { mode: 0o755 });
  await cp(plugin, join(dir, "plugin"), { recursive: true });
  spawnSync("chmod", ["-R", "a-w", dir]);
  return dir;
}

function start(runtime: EngineRuntime, path = SYSTEM_PATH) {
  const scratch = join(root, `start-${++scratches}`);
  const env = engineEnv({
    taskId: "qwen3-8b",
    profile: "ci",
    port: 40000 + scratches,
    targetDir: "/arena/target",
    speculatorDir: "/arena/speculator",
    gpuMemoryUtilization: 0.9,
    homeDir: scratch,
    login: FALLBACK_LOGIN,
    image: { PATH: path },
    simulated: runtime === "sim" ? { ARENA_SIM_ENGINE: SIM_ENGINE_BIN } : {},
  });
  return { scratch, env };
}

/** Runs Python as the engine user with the engine's environment: what `launch.sh serve` would see. */
function asEngine(env: Record<string, string>, code: string) {
  return spawnSync("python3", ["-c", code], { env: env as NodeJS.ProcessEnv, uid: UID, gid: UID, encoding: "utf8" });
}

describe("installPlugin on the vLLM runtime (pip, offline, into the engine user's site)", () => {
  it("installs a LowBArena-style plugin as the engine user, where the engine's Python finds its entry point", async () => {
    const engineDir = await sealedEngine("probe", join(VLLM_PLUGIN_FIXTURES, "arena-probe"));
    const { scratch, env } = start("vllm");
    const result = await installPlugin({ runtime: "vllm", engineDir, scratchDir: scratch, env, identity: engineUser });
    expect(result.status).toBe("installed");
    if (result.status !== "installed") return;
    expect(result.summary).toBe("Successfully installed arena_probe-0.1.0");
    expect(result.log[0]).toMatch(/^\$ python3 -m pip install --user --no-index --no-deps .*\/plugin-source$/);

    const found = asEngine(
      env,
      "import getpass, site; from importlib.metadata import entry_points\n" +
        "print(getpass.getuser(), site.getusersitepackages())\n" +
        "print([(e.name, e.value) for e in entry_points(group='vllm.general_plugins')])",
    );
    expect(found.stderr).toBe("");
    const [who, site] = found.stdout.split("\n")[0]!.split(" ");
    expect(who).toBe(FALLBACK_LOGIN);
    expect(site!.startsWith(join(scratch, ".local/lib/python3"))).toBe(true);
    expect(found.stdout).toContain("[('arena_probe', 'arena_probe:register')]");
    // installed by the engine user, and from the copy: the sealed directory is as it was
    expect((await stat(join(site!, "arena_probe", "__init__.py"))).uid).toBe(UID);
    expect((await readdir(join(engineDir, "plugin"))).sort()).toEqual(["arena_probe", "backend.py", "pyproject.toml"]);
  });

  it("fails a plugin that needs a dependency it does not carry, in pip's own words", async () => {
    const engineDir = await sealedEngine("needs-setuptools", join(VLLM_PLUGIN_FIXTURES, "needs-setuptools"));
    const { scratch, env } = start("vllm");
    const result = await installPlugin({ runtime: "vllm", engineDir, scratchDir: scratch, env, identity: engineUser });
    expect(result.status).toBe("failed");
    if (result.status !== "failed") return;
    expect(result.why).toMatch(/^the installer exited with 1: /);
    expect(result.why).toContain("No matching distribution found for setuptools>=99");
    expect(result.log.join("\n")).toContain("Could not find a version that satisfies the requirement setuptools>=99");
    const found = asEngine(
      env,
      "from importlib.metadata import entry_points; print(len(entry_points(group='vllm.general_plugins')))",
    );
    expect(found.stdout.trim()).toBe("0");
  });

  it("refuses links in plugin/, which could make the agent read for the engine what it may not", async () => {
    const plugin = join(root, "linked-plugin");
    await cp(join(VLLM_PLUGIN_FIXTURES, "arena-probe"), plugin, { recursive: true });
    await symlink("/etc/shadow", join(plugin, "arena_probe", "secret"));
    const engineDir = await sealedEngine("linked", plugin);
    const { scratch, env } = start("vllm");
    const result = await installPlugin({ runtime: "vllm", engineDir, scratchDir: scratch, env, identity: engineUser });
    expect(result).toEqual({
      status: "failed",
      why: "plugin/arena_probe/secret is a link; links are not allowed",
      log: [],
    });
  });

  it("has nothing to do without plugin/, and blames the arena when the image has no installer", async () => {
    const bare = join(root, "bare");
    await mkdir(bare);
    const first = start("vllm");
    expect(
      await installPlugin({
        runtime: "vllm",
        engineDir: bare,
        scratchDir: first.scratch,
        env: first.env,
        identity: engineUser,
      }),
    ).toEqual({
      status: "none",
    });
    const engineDir = await sealedEngine("no-python", join(VLLM_PLUGIN_FIXTURES, "arena-probe"));
    const { scratch, env } = start("vllm", "/nonexistent");
    const result = await installPlugin({ runtime: "vllm", engineDir, scratchDir: scratch, env, identity: engineUser });
    expect(result.status).toBe("unavailable");
    if (result.status === "unavailable") expect(result.why).toMatch(/^the installer python3 did not start: .*ENOENT/);
  });
});

describe("installPlugin on the simulated runtime (sim-engine install-plugin, into HOME)", () => {
  it("installs engines/plugin's plugin/ as the engine user under its HOME", async () => {
    const { scratch, env } = start("sim");
    const engineDir = join(SIM_ENGINE_DIRS, "plugin");
    const result = await installPlugin({ runtime: "sim", engineDir, scratchDir: scratch, env, identity: engineUser });
    expect(result).toMatchObject({ status: "installed", summary: "Successfully installed lookahead-0.1.0" });
    const installed = join(scratch, ".local/share/sim-engine/plugins/lookahead");
    expect(JSON.parse(await readFile(join(installed, "sim-plugin.json"), "utf8"))).toMatchObject({ name: "lookahead" });
    expect((await stat(join(installed, "lookahead.mjs"))).uid).toBe(UID);
  });

  it("fails the broken twin with the installer's message", async () => {
    const { scratch, env } = start("sim");
    const engineDir = join(SIM_ENGINE_DIRS, "plugin-broken");
    const result = await installPlugin({ runtime: "sim", engineDir, scratchDir: scratch, env, identity: engineUser });
    expect(result.status).toBe("failed");
    if (result.status === "failed")
      expect(result.why).toMatch(
        /^the installer exited with 1: ERROR: lookahead\.mjs cannot be loaded: Cannot find package 'sim-lookahead-kernels'/,
      );
  });
});

describe("pluginInstallCommand and installerMessage", () => {
  it("spells LowBArena's pip command, and the simulated engine's installer", () => {
    const vllm = pluginInstallCommand("vllm", { HOME: "/h" }, "/h/plugin-source");
    expect([vllm.command, ...vllm.args].join(" ")).toBe(
      "python3 -m pip install --user --no-index --no-deps --no-cache-dir --disable-pip-version-check --no-input --no-warn-script-location /h/plugin-source",
    );
    expect(vllm.env).toEqual({ HOME: "/h", PIP_BREAK_SYSTEM_PACKAGES: "1" });
    const sim = pluginInstallCommand("sim", { ARENA_SIM_ENGINE: "/repo/sim-engine" }, "/h/p");
    expect([sim.command, ...sim.args]).toEqual(["/repo/sim-engine", "install-plugin", "/h/p"]);
    expect(() => pluginInstallCommand("sim", {}, "/h/p")).toThrow(/ARENA_SIM_ENGINE/);
  });

  it("quotes the installer's error lines without repeats, or its last lines where it printed none", () => {
    const pip = [
      "Processing ./plugin-source",
      "  error: subprocess-exited-with-error",
      "      ERROR: Could not find a version that satisfies the requirement setuptools>=99 (from versions: none)",
      "      ERROR: No matching distribution found for setuptools>=99",
      "  note: This error originates from a subprocess, and is likely not a problem with pip.",
      "error: subprocess-exited-with-error",
      "",
      "note: This error originates from a subprocess, and is likely not a problem with pip.",
    ];
    expect(installerMessage(pip)).toBe(
      "error: subprocess-exited-with-error | ERROR: Could not find a version that satisfies the requirement setuptools>=99 (from versions: none) | ERROR: No matching distribution found for setuptools>=99",
    );
    expect(installerMessage(["  RuntimeError: no kernels here", "ERROR: Failed building wheel for x"], 1)).toBe(
      "ERROR: Failed building wheel for x",
    );
    expect(installerMessage(["a", "", "  b  ", "c"], 2)).toBe("b | c");
  });
});
