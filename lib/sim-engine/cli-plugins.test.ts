import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pluginsDir } from "./cli-plugins";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS, spawnSimEngine } from "./spawn";
import { metricValue, postChat } from "./testing/client";

let root: string;
let homes = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "sim-plugins-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const newHome = () => join(root, `home-${++homes}`);

function installPlugin(home: string, dir: string) {
  return spawnSync(SIM_ENGINE_BIN, ["install-plugin", dir], { encoding: "utf8", env: { ...process.env, HOME: home } });
}

describe("sim-engine install-plugin and serve --drafter", () => {
  it("serves the drafter engines/plugin's plugin registers, once installed under HOME", async () => {
    const home = newHome();
    const installed = installPlugin(home, join(SIM_ENGINE_DIRS, "plugin", "plugin"));
    expect([installed.status, installed.stdout.trim()]).toEqual([0, "Successfully installed lookahead-0.1.0"]);
    const engine = spawnSimEngine({
      port: await freePort(),
      launch: join(SIM_ENGINE_DIRS, "plugin", "launch.sh"),
      env: { HOME: home, SIM_SPEED: "50" },
    });
    try {
      await engine.ready;
      const log = engine.output.join("\n");
      expect(log).toContain("Loaded plugin lookahead 0.1.0: drafters lookahead");
      expect(log).toContain("simulated engine: mode ngram, ngram k=6");
      const reply = await postChat(engine.url, {
        model: "qwen3-8b",
        messages: [{ role: "user", content: "Repeat after me: the cat sat on the mat, the cat sat on the mat." }],
        max_tokens: 24,
        seed: 5,
      });
      expect(reply.status).toBe(200);
      expect(await metricValue(engine.url, "vllm:spec_decode_num_drafts_total")).toBeGreaterThan(0);
      // six draft positions: the plugin's k, not the ngram mode's default of 4
      const metrics = await (await fetch(`${engine.url}/metrics`)).text();
      expect(metrics).toContain('position="5"');
      expect(metrics).not.toContain('position="6"');
    } finally {
      expect(await engine.stop()).toBe(0);
    }
  });

  it("will not start the plugin's engine without its plugin installed", async () => {
    const engine = spawnSimEngine({
      port: await freePort(),
      launch: join(SIM_ENGINE_DIRS, "plugin", "launch.sh"),
      env: { HOME: newHome() },
    });
    await expect(engine.ready).rejects.toThrow(
      /unknown drafter "lookahead": no installed plugin registers it \(registered: none\)/,
    );
    expect(await engine.stop()).toBe(2);
  });

  it("fails to install the broken twin, and a manifest that is wrong, naming what is wrong", async () => {
    const home = newHome();
    const broken = installPlugin(home, join(SIM_ENGINE_DIRS, "plugin-broken", "plugin"));
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(
      /^ERROR: lookahead\.mjs cannot be loaded: Cannot find package 'sim-lookahead-kernels'/,
    );
    const bad = join(root, "bad-manifest");
    await cp(join(SIM_ENGINE_DIRS, "plugin", "plugin"), bad, { recursive: true });
    await writeFile(
      join(bad, "sim-plugin.json"),
      JSON.stringify({ name: "Look Ahead", version: "1", main: "../x.mjs" }),
    );
    const refused = installPlugin(home, bad);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe(
      "ERROR: plugin/sim-plugin.json: name: lower-case letters, digits, - and _, at most 64; main: a .mjs or .js file inside the plugin",
    );
    expect(spawnSync("ls", [pluginsDir(home)], { encoding: "utf8" }).stdout).toBe("");
  });

  it("logs and skips an installed plugin that no longer loads, as vLLM does, and stops on one whose register throws", async () => {
    const home = newHome();
    expect(installPlugin(home, join(SIM_ENGINE_DIRS, "plugin", "plugin")).status).toBe(0);
    const main = join(pluginsDir(home), "lookahead", "lookahead.mjs");
    const good = await readFile(main, "utf8");
    await writeFile(main, "export function register( {\n");
    const skipping = spawnSimEngine({ port: await freePort(), args: ["--mode", "stock"], env: { HOME: home } });
    try {
      await skipping.ready;
      expect(skipping.output.join("\n")).toMatch(
        /ERROR \[plugins\] Failed to load plugin lookahead: lookahead\.mjs cannot be loaded/,
      );
    } finally {
      await skipping.stop();
    }
    await writeFile(main, good.replace('{ method: "ngram", k: 6 }', '{ method: "medusa", k: 6 }'));
    const stopping = spawnSimEngine({ port: await freePort(), args: ["--mode", "stock"], env: { HOME: home } });
    await expect(stopping.ready).rejects.toThrow(
      /plugin lookahead: drafter lookahead: method must be ngram, draft or eagle/,
    );
    expect(await stopping.stop()).not.toBe(0);
  });
});
