import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { workloadCard } from "../card/workload-card";
import { isHeldOut } from "./build-pool";
import { DEFAULT_DATA_DIR } from "./data-dir";
import { importAider } from "./importers/aider";
import { importMlcommons } from "./importers/mlcommons";
import { importMtBench } from "./importers/mt-bench";
import { importSpecBench } from "./importers/spec-bench";
import { loadPool, parsePool, serializePool } from "./load";
import { DEV_POOL_PATH } from "./paths";
import { fixedTexts, greedyProbes } from "./probes";
import { makeTestPool } from "./test-pool";

const app = { type: "app", id: "a", family: "chat", systemPrompt: "sys", tools: [], source: "s", license: "MIT" };
const session = (id: string, extra: Record<string, unknown> = {}) => ({
  type: "session",
  id,
  app: "a",
  family: "chat",
  source: "s",
  sourceItem: "1",
  turns: [{ role: "user", content: "hi", maxTokens: 64, thinkSeconds: 0 }],
  ...extra,
});
const jsonl = (...rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n");

describe("the pool format", () => {
  it("parses apps and sessions", () => {
    const pool = parsePool(jsonl(app, session("x"), session("y")));
    expect(pool.sessions.map((s) => s.id)).toEqual(["x", "y"]);
    expect(pool.apps.get("a")!.systemPrompt).toBe("sys");
  });

  it("names what is wrong, and where", () => {
    expect(() => parsePool(jsonl(app, session("x", { turns: [] })), "p.jsonl")).toThrow(/p\.jsonl:2: turns/);
    expect(() => parsePool(`${jsonl(app)}\n{oops`, "p.jsonl")).toThrow(/p\.jsonl:2: not JSON/);
    expect(() => parsePool(jsonl(app, session("x", { app: "nope" })))).toThrow(/names app "nope"/);
    expect(() => parsePool(jsonl(app, session("x"), session("x")))).toThrow(/appears twice/);
    expect(() =>
      parsePool(jsonl(app, session("x", { turns: [{ role: "user", content: "hi", maxTokens: 0, thinkSeconds: 0 }] }))),
    ).toThrow(/maxTokens/);
    expect(() => loadPool("/no/such/pool.jsonl")).toThrow(/cannot read pool/);
  });

  it("says which tokenizer counted it in a first meta line, kept through a round trip", () => {
    const fingerprint = "ab".repeat(32);
    const meta = { type: "meta", countedBy: { fingerprint, name: "some tokenizer" } };
    const pool = parsePool(jsonl(meta, app, session("x")));
    expect(pool.countedBy).toEqual({ fingerprint, name: "some tokenizer" });
    expect(serializePool(pool).split("\n")[0]).toBe(JSON.stringify(meta));
    expect(parsePool(serializePool(pool)).countedBy).toEqual(pool.countedBy);
    expect(parsePool(jsonl(app, session("x"))).countedBy).toBeUndefined();
    expect(serializePool(parsePool(jsonl(app, session("x"))))).not.toContain('"meta"');
    expect(() => parsePool(jsonl(app, meta, session("x")), "p.jsonl")).toThrow(
      /p\.jsonl:2: the meta line must come first/,
    );
    expect(() => parsePool(jsonl(meta, meta, app, session("x")), "p.jsonl")).toThrow(/p\.jsonl:2: the meta line/);
    expect(() =>
      parsePool(jsonl({ type: "meta", countedBy: { fingerprint: "qwen3" } }, app, session("x")), "p.jsonl"),
    ).toThrow(/p\.jsonl:1: countedBy\.fingerprint: must be a sha256 in hex/);
  });
});

describe("the public dev pool", () => {
  const pool = loadPool(DEV_POOL_PATH);

  it("is committed, a few MB, counted, and holds both families", () => {
    expect(statSync(DEV_POOL_PATH).size).toBeLessThan(6_000_000);
    const card = workloadCard();
    const agent = pool.sessions.filter((s) => s.family === "agent");
    const chat = pool.sessions.filter((s) => s.family === "chat");
    // 3 passes × 3 workloads × 20 lanes × 2 interleave, plus warm-ups
    expect(pool.sessions.length).toBeGreaterThan(3 * 3 * 20 * 2 + 29);
    expect(agent.length).toBeGreaterThan(100);
    expect(chat.length).toBeGreaterThan(1000);
    for (const s of pool.sessions) {
      expect(s.turns[0]!.thinkSeconds).toBe(0);
      for (const t of s.turns) {
        expect(t.tokens).toBeGreaterThan(0);
        expect(t.maxTokens).toBeGreaterThanOrEqual(card.replyBudget.min);
        expect(t.maxTokens).toBeLessThanOrEqual(card.replyBudget.max);
      }
    }
    for (const a of pool.apps.values()) expect(a.systemTokens).toBeGreaterThan(0);
    expect(pool.sessions.some((s) => isHeldOut(s.source, s.sourceItem))).toBe(false);
  });

  it("names the packaged Qwen3 tokenizer as what counted it, and its counts are that tokenizer's", () => {
    const tok = qwen3Tokenizer();
    expect(pool.countedBy?.fingerprint).toBe(tok.fingerprint);
    for (const s of pool.sessions.filter((_, i) => i % 50 === 0))
      for (const t of s.turns) expect(t.tokens).toBe(tok.encode(t.content).length);
    for (const a of pool.apps.values()) expect(a.systemTokens).toBe(tok.encode(a.systemPrompt).length);
  });

  it("gives greedy probes built like timed requests, and fixed texts, deterministically", () => {
    const probes = greedyProbes(pool, { seed: "e1", count: 64, maxTokens: 256, model: "m" });
    expect(probes).toHaveLength(64);
    expect(greedyProbes(pool, { seed: "e1", count: 64, maxTokens: 256, model: "m" }).map((p) => p.sessionId)).toEqual(
      probes.map((p) => p.sessionId),
    );
    for (const p of probes) {
      expect(p.body).toMatchObject({ stream: true, temperature: 0, top_p: 0.8, top_k: 20, max_tokens: 256 });
      expect(p.messages[0]!.content).toMatch(/^\[session [0-9a-f]{16}\]\n/);
      expect(["user", "tool"]).toContain(p.messages.at(-1)!.role);
    }
    const texts = fixedTexts(pool, { seed: "e1", count: 64 });
    expect(texts).toHaveLength(64);
    for (const t of texts) {
      expect(t.reply.length).toBeGreaterThan(0);
      expect(["user", "tool"]).toContain(t.messages.at(-1)!.role);
      expect(t.messages.filter((m) => m.role === "assistant").every((m) => m.content.length > 0)).toBe(true);
    }
  });
});

describe("importers of the public data", () => {
  it("read MT-Bench, Spec-Bench, MLCommons and aider shapes", () => {
    const mt = importMtBench(DEFAULT_DATA_DIR);
    expect(mt.conversations).toHaveLength(80);
    expect(mt.conversations.every((c) => c.turns.length === 2)).toBe(true);
    expect(mt.conversations.filter((c) => c.turns[0]!.recordedReply).length).toBe(30);
    expect(importSpecBench(DEFAULT_DATA_DIR).conversations).toHaveLength(400);
    const ml = importMlcommons(DEFAULT_DATA_DIR);
    expect(ml.conversations).toHaveLength(20);
    expect(ml.apps[0]!.tools[0]!.function.name).toBe("bash");
    const tools = ml.conversations[0]!.turns.filter((t) => t.role === "tool");
    expect(tools.length).toBeGreaterThan(20);
    expect(tools.every((t) => t.delaySeconds !== undefined)).toBe(true);
    expect(ml.conversations[0]!.turns[0]!.recordedReply).toMatch(/<tool_call>/);
    const aider = importAider(DEFAULT_DATA_DIR);
    expect(aider.conversations.length).toBeGreaterThan(150);
    expect(aider.conversations.every((c) => c.turns.length >= 2)).toBe(true);
  });

  it("builds the test pool at run time from the held-out share only", () => {
    const dir = mkdtempSync(join(tmpdir(), "judge-test-pool-"));
    try {
      const path = join(dir, "test.jsonl");
      const test = makeTestPool(DEFAULT_DATA_DIR, path);
      const reloaded = loadPool(path);
      expect(reloaded.sessions.length).toBe(test.sessions.length);
      expect(reloaded.countedBy?.fingerprint).toBe(qwen3Tokenizer().fingerprint);
      expect(test.sessions.length).toBeGreaterThan(200);
      expect(test.sessions.every((s) => isHeldOut(s.source, s.sourceItem))).toBe(true);
      const dev = new Set(loadPool(DEV_POOL_PATH).sessions.map((s) => `${s.source}|${s.sourceItem}`));
      expect(test.sessions.some((s) => dev.has(`${s.source}|${s.sourceItem}`))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
