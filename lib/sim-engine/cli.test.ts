import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODES } from "./modes";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS, spawnSimEngine } from "./spawn";
import { metricValue, postChat } from "./testing/client";

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe("the sim-engine command and the engine directories", () => {
  it("ships an executable launch.sh for every mode", () => {
    for (const mode of MODES) {
      const launch = join(SIM_ENGINE_DIRS, mode, "launch.sh");
      accessSync(launch, constants.X_OK);
      expect(readFileSync(launch, "utf8")).toContain(`"$ARENA_SIM_ENGINE" serve --mode ${mode}`);
    }
  });

  it("exits non-zero with a clear message on an unknown mode or a bad environment", () => {
    const bad = spawnSync(SIM_ENGINE_BIN, ["serve", "--mode", "warp"], {
      encoding: "utf8",
      env: { ...process.env, PORT: "1", SERVED_NAME: "x" },
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('unknown mode "warp"');
    const noPort = spawnSync(SIM_ENGINE_BIN, ["serve"], {
      encoding: "utf8",
      env: { ...process.env, PORT: "", SERVED_NAME: "x" },
    });
    expect(noPort.status).not.toBe(0);
    expect(noPort.stderr).toContain("PORT is required");
    const badStrength = spawnSync(SIM_ENGINE_BIN, ["serve", "--top-k", "0"], {
      encoding: "utf8",
      env: { ...process.env, PORT: "1", SERVED_NAME: "x" },
    });
    expect(badStrength.status).toBe(2);
    expect(badStrength.stderr).toContain("--top-k must be an integer from 1 to 1000");
  });

  it("serves through an engine directory's launch.sh, publishes device memory, and stops cleanly on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simcli-"));
    const deviceFile = join(dir, "gpu.csv");
    const port = await freePort();
    const engine = spawnSimEngine({
      port,
      launch: join(SIM_ENGINE_DIRS, "eagle", "launch.sh"),
      env: { SIM_SPEED: "50", SIM_DEVICE_FILE: deviceFile, SERVED_NAME: "qwen3-8b", MAX_NUM_SEQS: "8" },
    });
    try {
      await engine.ready;
      expect(engine.output.join("\n")).toMatch(/Available KV cache memory: \d+\.\d\d GiB/);
      expect(engine.output.join("\n")).toMatch(/GPU KV cache size: [\d,]+ tokens/);
      const [used] = readFileSync(deviceFile, "utf8").split(", ").map(Number);
      expect(used).toBeGreaterThan(160_000);
      expect(used).toBeLessThan(169_119);
      const r = await postChat(engine.url, {
        model: "qwen3-8b",
        messages: [{ role: "user", content: "Hello!" }],
        max_tokens: 20,
        seed: 1,
      });
      expect(r.status).toBe(200);
      expect(await metricValue(engine.url, "vllm:spec_decode_num_drafts_total")).toBeGreaterThan(0);
    } finally {
      expect(await engine.stop()).toBe(0);
    }
    expect(readFileSync(deviceFile, "utf8")).toBe("0, 183359\n");
  });

  it("takes its speculator from $SPECULATOR/sim-speculator.json when no mode is given", async () => {
    const spec = mkdtempSync(join(tmpdir(), "simspec-"));
    writeFileSync(join(spec, "sim-speculator.json"), JSON.stringify({ method: "ngram", k: 2 }));
    const port = await freePort();
    const engine = spawnSimEngine({ port, env: { SPECULATOR: spec, SIM_SPEED: "50" } });
    try {
      await engine.ready;
      expect(engine.output.join("\n")).toContain("ngram k=2");
      const text = await (await fetch(`${engine.url}/metrics`)).text();
      expect(text).toContain("vllm:spec_decode_num_draft_tokens_total");
      expect(text).toContain('position="1"');
      expect(text).not.toContain('position="2"');
    } finally {
      await engine.stop();
    }
  });
});
