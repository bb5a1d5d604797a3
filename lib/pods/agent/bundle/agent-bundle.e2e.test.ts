import { chmod, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKLOAD_IDS } from "@/lib/protocol";
import { redTeamEnv } from "@/lib/red-team/env";
import { runPodFor } from "@/lib/red-team/pod-run";
import { AGENT_BUNDLE_ENTRY, buildAgentBundle } from "./build-agent-bundle";

/**
 * The bundle a Kubernetes pod runs (k8s/README.md): built outside the repository, started by its own Node with no
 * node_modules anywhere above it, it plays a whole evaluation pod (the simulated stock engine against itself) and
 * reports a result record, as the agent from source does.
 */
describe("the pod agent bundle", () => {
  let base: string;
  let bundle: string;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agent-bundle-"));
    // the red-team runner starts a root caller's agent as an unprivileged user, which must read the bundle
    await chmod(base, 0o755);
    bundle = join(base, "pod-agent");
    await buildAgentBundle(bundle, { node: "link" });
  });

  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it("holds the agent, its token worker, the tokenizer and the dev pool, and no node_modules", async () => {
    expect((await readdir(bundle)).sort()).toEqual(
      expect.arrayContaining(["data", "node", AGENT_BUNDLE_ENTRY, "qwen3-tokenizer", "token-worker.mjs"]),
    );
    expect(await readdir(bundle)).not.toContain("node_modules");
    const code = await readFile(join(bundle, AGENT_BUNDLE_ENTRY), "utf8");
    // every package is inside: no import of anything but Node's own modules and the bundle's files
    const imports = [...code.matchAll(/^\s*import\s[^;]*?from\s*["']([^"']+)["']/gm)].map((m) => m[1]!);
    expect(imports.filter((i) => !i.startsWith("node:"))).toEqual([]);
  });

  it(
    "runs a whole evaluation pod from outside the repository",
    async () => {
      const run = await runPodFor({
        mode: "stock",
        seed: "bundle",
        profile: "ci",
        task: "qwen3-8b",
        simSpeed: 2,
        env: redTeamEnv(process.env),
        agent: { command: join(bundle, "node"), args: [join(bundle, AGENT_BUNDLE_ENTRY)], cwd: base },
      });
      expect(run.outcome, `${run.reason}\n${run.logTail ?? ""}`).not.toBe("error");
      expect(run.outcome).not.toBe("void");
      expect(run.record).not.toBeNull();
      // the stock engine against itself: every workload measured, at a ratio near 1
      for (const w of WORKLOAD_IDS) {
        expect(run.record!.ratios[w].passes.length).toBe(3);
        expect(run.record!.ratios[w].ratio).toBeGreaterThan(0.5);
        expect(run.record!.ratios[w].ratio).toBeLessThan(2);
      }
    },
    10 * 60_000,
  );
});
