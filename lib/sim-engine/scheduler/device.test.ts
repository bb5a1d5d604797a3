import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { QWEN3_8B_B200, stepSeconds } from "./cost-model";
import { DEVICE_TOTAL_MIB, DeviceFile, planMemory } from "./device";

const ALLOWED_MIB = 0.9 * DEVICE_TOTAL_MIB + 4096;

describe("the simulated B200", () => {
  it("gives the stock engine a KV cache of about 1.05M tokens at 0.90, within the allowed memory", () => {
    const stock = planMemory(0.9, null);
    expect(stock.kvTokens).toBeGreaterThan(1_040_000);
    expect(stock.kvTokens).toBeLessThan(1_060_000);
    expect(stock.usedMib).toBeLessThan(ALLOWED_MIB);
    expect(stock.usedMib).toBeGreaterThan(ALLOWED_MIB - 4096);
    expect(ALLOWED_MIB).toBeCloseTo(169_119.1, 1);
  });

  it("takes a speculator's weights and KV out of the same budget", () => {
    const stock = planMemory(0.9, null).kvTokens;
    expect(planMemory(0.9, "ngram").kvTokens).toBe(stock);
    expect(planMemory(0.9, "eagle").kvTokens).toBeLessThan(stock);
    expect(planMemory(0.9, "draft").kvTokens).toBeLessThan(planMemory(0.9, "eagle").kvTokens);
    expect(planMemory(0.8, null).kvTokens).toBeLessThan(stock);
  });

  it("puts 0.97 of the device over the allowed memory", () => {
    expect(planMemory(0.97, null).usedMib).toBeGreaterThan(ALLOWED_MIB);
  });

  it("publishes memory in use in nvidia-smi's csv form", () => {
    const path = join(mkdtempSync(join(tmpdir(), "simdev-")), "gpu.csv");
    const f = new DeviceFile(path);
    f.write(166_047);
    expect(readFileSync(path, "utf8")).toBe("166047, 183359\n");
    f.write(0);
    expect(readFileSync(path, "utf8")).toBe("0, 183359\n");
  });

  it("costs a solo decode step about 1/150 s and makes verify steps cost their tokens", () => {
    const solo = stepSeconds(
      QWEN3_8B_B200,
      { decodeTokens: 1, contextTokens: 4000, prefill: [], draftSequences: 0, draftDepth: 0 },
      null,
    );
    expect(1 / solo).toBeGreaterThan(140);
    expect(1 / solo).toBeLessThan(160);
    const verify20 = stepSeconds(
      QWEN3_8B_B200,
      { decodeTokens: 80, contextTokens: 20 * 4000, prefill: [], draftSequences: 20, draftDepth: 3 },
      "eagle",
    );
    const plain20 = stepSeconds(
      QWEN3_8B_B200,
      { decodeTokens: 20, contextTokens: 20 * 4000, prefill: [], draftSequences: 0, draftDepth: 0 },
      null,
    );
    expect(verify20 / plain20).toBeGreaterThan(2);
  });
});
