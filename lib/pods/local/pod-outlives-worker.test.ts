import { readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS } from "@/lib/sim-engine";
import { copyQwen3TokenizerFiles } from "@/lib/tokenizer/packaged-qwen3";
import { until } from "../../testing/until";
import type { PodEvent, PodHandle, PodLaunch } from "../types";
import { LocalPodBackend } from "./local-pod-backend";

/**
 * A local pod outlives the worker that started it (its events go to a file, not a pipe), and the next worker
 * re-attaches to it from where the stored events end, or stops it; nothing of it outlives its deadline. Without the
 * sandbox (the namespaced pod is sandbox.e2e.test.ts's), so that the pods are cheap: an engine that never serves.
 */
let base: string;
let inputs: string;
const backends: LocalPodBackend[] = [];

/** Each pod's engine sleeps this long, a number no other process on the host sleeps: how its processes are found. */
const MARKS = {
  outlives: 7000 + (process.pid % 1000),
  deadline: 8000 + (process.pid % 1000),
  orphan: 9000 + (process.pid % 1000),
};

function backend(): LocalPodBackend {
  const made = new LocalPodBackend({
    stateDir: join(base, "state"),
    claimsDir: join(base, "claims"),
    sandbox: "off",
    pollMs: 50,
    stopGraceMs: 3000,
    agentEnv: { ARENA_ENGINE_RUNTIME: "sim", ARENA_SIM_ENGINE: SIM_ENGINE_BIN, SIM_SPEED: "50" },
  });
  backends.push(made);
  return made;
}

async function engine(name: string, script: string): Promise<string> {
  const dir = join(inputs, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "launch.sh"), `#!/usr/bin/env bash\n${script}\n`, { mode: 0o755 });
  return dir;
}

function launch(evaluationId: string, engineDir: string, deadlineSeconds: number): PodLaunch {
  return {
    evaluationId,
    attempt: 1,
    taskId: "qwen3-8b",
    profile: "ci",
    seed: 1,
    engineDir,
    speculatorDir: join(inputs, "speculator"),
    targetDir: join(inputs, "target"),
    stockEngineDir: join(SIM_ENGINE_DIRS, "stock"),
    deadlineSeconds,
  };
}

/** Pids of the host's processes whose command line is `sleep <mark>`: a pod's engine. */
function sleepers(mark: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0];
      if (argv[0]?.endsWith("sleep") && argv[1] === String(mark) && state !== "Z") out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Reads events until `stop` says so (then the handle is detached, as a dying worker leaves it), or they end. */
async function readUntil(handle: PodHandle, stop: (event: PodEvent) => boolean): Promise<PodEvent[]> {
  const out: PodEvent[] = [];
  for await (const event of handle.events) {
    out.push(event);
    if (stop(event)) {
      handle.detach();
      break;
    }
  }
  return out;
}

/** The engine-user claims naming a pod. */
async function claimsOf(podId: string): Promise<string[]> {
  const dir = join(base, "claims");
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((name) => readFileSync(join(dir, name), "utf8").includes(podId));
}

const numbered = (events: PodEvent[]) => events.filter((e) => e.seq !== undefined).map((e) => e.seq!);

/** The three pods, started at once (an agent takes seconds to come up on a busy machine), each by its own worker. */
let pods: Record<"outlives" | "deadline" | "orphan", { backend: LocalPodBackend; handle: PodHandle }>;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "pod-outlives-"));
  inputs = join(base, "inputs");
  await mkdir(join(inputs, "speculator"), { recursive: true });
  await mkdir(join(inputs, "target"));
  await copyQwen3TokenizerFiles(join(inputs, "target"));
  await chmod(inputs, 0o700);
  const start = async (id: string, script: string, deadlineSeconds: number) => {
    const made = backend();
    return { backend: made, handle: await made.start(launch(id, await engine(id, script), deadlineSeconds)) };
  };
  // an engine that runs a few seconds and dies without serving (the candidate "did not start", scored 0), and two
  // that never serve
  const [outlives, deadline, orphan] = await Promise.all([
    start("outlives", `sleep ${MARKS.outlives} & sleep 4; exit 3`, 120),
    start("deadline", `exec sleep ${MARKS.deadline}`, 30),
    start("orphan", `exec sleep ${MARKS.orphan}`, 120),
  ]);
  pods = { outlives: outlives!, deadline: deadline!, orphan: orphan! };
});

afterAll(async () => {
  for (const b of backends) for (const pod of await b.list()) await b.stop(pod.podId);
  await rm(base, { recursive: true, force: true });
});

describe("a local pod whose worker goes", () => {
  it("runs on, and the next worker re-attaches to it: every event after the stored ones once, then its end", async () => {
    const { backend: first, handle } = pods.outlives;
    const seen = await readUntil(handle, (e) => e.type === "engine" && e.state === "starting");
    // the backend's own note first (no number), then the agent's events, numbered from 1
    expect(seen[0]).toMatchObject({ type: "log", message: expect.stringMatching(/^the engine sandbox lacks/) });
    expect(seen[0]!.seq).toBeUndefined();
    const stored = numbered(seen);
    expect(stored).toEqual(stored.map((_, i) => i + 1));
    const afterSeq = stored.at(-1)!;

    // the worker is gone: its pod is not
    const listed = (await first.list()).find((pod) => pod.podId === handle.podId);
    expect(listed).toMatchObject({ podId: handle.podId, evaluationId: "outlives", attempt: 1, phase: "running" });
    expect(listed!.deadlineAt!.getTime()).toBeGreaterThan(Date.now() + 100_000);
    const next = backend();
    const attached = await next.attach(handle.podId, afterSeq);
    expect(attached?.podId).toBe(handle.podId);
    const rest: PodEvent[] = [];
    for await (const event of attached!.events) rest.push(event);
    expect(await attached!.exited).toEqual({ kind: "completed" });
    const relayed = numbered(rest);
    expect(relayed[0]).toBe(afterSeq + 1);
    expect(relayed).toEqual(relayed.map((_, i) => afterSeq + 1 + i));
    expect(rest.filter((e) => e.seq === undefined)).toEqual([]);
    expect(rest.find((e) => e.type === "engine" && e.state === "start-failed")).toBeDefined();
    expect(rest.at(-1)).toMatchObject({
      type: "result",
      outcome: "scored",
      reason: expect.stringMatching(/^the candidate engine did not start/),
    });
    // the pod is cleaned up after by the worker that saw it end: pid file, work folder, engine user's claim
    expect((await next.list()).map((pod) => pod.podId)).not.toContain(handle.podId);
    expect(await readdir(join(base, "state", "pods"))).not.toContain(handle.podId);
    expect(await claimsOf(handle.podId)).toEqual([]);
    expect(sleepers(MARKS.outlives)).toEqual([]);
    // the agent's own output is kept for the operators
    expect((await stat(join(base, "state", "logs", handle.podId, "agent.log"))).isFile()).toBe(true);
  }, 60_000);

  it("ends by itself at its deadline when no worker comes back; a worker that attaches then reads how it ended", async () => {
    const { backend: first, handle } = pods.deadline;
    await readUntil(handle, (e) => e.type === "engine" && e.state === "starting");
    await until(async () => (sleepers(MARKS.deadline).length > 0 ? true : undefined), 10_000, 50);
    const mine = async () => (await first.list()).find((pod) => pod.podId === handle.podId);
    await until(async () => ((await mine())?.phase === "unknown" ? true : undefined), 60_000, 100);
    expect(Date.now() - (await mine())!.deadlineAt!.getTime()).toBeLessThan(15_000);
    // its engine went with it
    expect(sleepers(MARKS.deadline)).toEqual([]);

    const late = await backend().attach(handle.podId, 0);
    const events: PodEvent[] = [];
    for await (const event of late!.events) events.push(event);
    expect(await late!.exited).toEqual({ kind: "failed", reason: "deadline-exceeded", message: expect.any(String) });
    expect(events.at(-1)).toMatchObject({
      type: "log",
      level: "error",
      message: "the pod reached its deadline of 30 s: it ends",
    });
    // what the agent said while its engines were being stopped is no outcome
    expect(events.filter((e) => e.type === "result")).toEqual([]);
    expect(await mine()).toBeUndefined();
  }, 90_000);

  it("is stopped, whole, by another worker (its evaluation is over), and is then nothing to attach to", async () => {
    const { handle } = pods.orphan;
    await readUntil(handle, (e) => e.type === "engine" && e.state === "starting");
    await until(async () => (sleepers(MARKS.orphan).length > 0 ? true : undefined), 10_000, 50);
    const sweeper = backend();
    await sweeper.stop(handle.podId);
    expect(sleepers(MARKS.orphan)).toEqual([]);
    expect((await sweeper.list()).map((pod) => pod.podId)).not.toContain(handle.podId);
    expect(await claimsOf(handle.podId)).toEqual([]);
    expect(await sweeper.attach(handle.podId, 0)).toBeNull();
  }, 60_000);
});
