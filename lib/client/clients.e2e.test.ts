import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { SIM_EAGLE_LAUNCH } from "../kit/examples";
import { buildWeb, childEnv, hasWebBuild, type SupervisedApp, superviseApp } from "../ops/arena-stack";
import { freePort } from "../ops/services";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { type DroppingProxy, startDroppingProxy } from "../testing/dropping-proxy";
import { simulatedWorkerEnv } from "../testing/spawn-worker";
import { issueToken } from "../tokens/issue-token";

// Both participant clients against the arena as `npm run arena` runs it: the built web app (`next start`) and the
// worker under the arena's own supervision, local pods on the simulated engines (`npm test` builds before the whole
// evaluations run; alone, this file builds when no build is there).
// Every event stream passes a proxy that cuts each client's first connection once a pass has ended. The Python client
// is the file the arena serves at /client.py, run by the machine's python3 with nothing installed; the CLI is the
// package's bin (what `npx speculatorarena` runs). Its test-split submission plays on a fresh clone's terms: no
// TEST_POOL_PATH and no public data beside the repository.

const CLI = fileURLToPath(new URL("./bin/speculatorarena.mjs", import.meta.url));
const PASSES = ["candidate", "stock"].flatMap((engine) =>
  ["solo", "team", "busy"].flatMap((workload) => [1, 2, 3].map((pass) => ({ engine, workload, pass }))),
);

let ctx: ArenaTestContext;
let base: string;
let app: SupervisedApp | undefined;
let appUrl: string;
/** The web process's and worker's last lines, printed when a test fails. */
const output: string[] = [];
let failed = false;
let proxy: DroppingProxy;
let engineDir: string;
let pythonDir: string;
const tokens: Record<"python" | "cli", string> = { python: "", cli: "" };
const running = new Set<ReturnType<typeof spawn>>();

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

function run(client: "python" | "cli", args: string[], token = tokens[client]): Promise<Ran> {
  const [command, argv, cwd] =
    client === "python"
      ? ["python3", ["-m", "speculatorarena.client", ...args], pythonDir]
      : [process.execPath, [CLI, ...args], base];
  return new Promise((resolve) => {
    const child = spawn(command, argv, {
      cwd,
      env: { ...process.env, SPECULATORARENA_URL: proxy.url, SPECULATORARENA_TOKEN: token },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(child);
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.on("close", (code) => {
      running.delete(child);
      resolve({ code, out, err });
    });
  });
}

const charges = () => db().budgetLedger.count({ where: { kind: "charge" } });

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  base = await mkdtemp(join(tmpdir(), "clients-e2e-"));
  await chmod(base, 0o755);
  engineDir = join(base, "my-engine");
  await mkdir(engineDir);
  await writeFile(join(engineDir, "launch.sh"), SIM_EAGLE_LAUNCH, { mode: 0o755 });
  if (!hasWebBuild()) await buildWeb(childEnv({}));
  const port = await freePort();
  appUrl = `http://127.0.0.1:${port}`;
  app = await superviseApp({
    env: {
      ...process.env,
      ...simulatedWorkerEnv(ctx, join(base, "data"), { GPU_SLOTS: "2", PUBLIC_DATA_DIR: join(base, "no-public-data") }),
    },
    port,
    host: "127.0.0.1",
    baseUrl: `${appUrl}/api/health`,
    write: (line) => {
      output.push(line);
      if (output.length > 400) output.splice(0, output.length - 400);
    },
    log: (line) => output.push(line),
  });
  proxy = await startDroppingProxy(appUrl, {
    // each evaluation's first stream only: a later `watch` of it passes untouched
    cut: (stream) => proxy.streams.filter((s) => s.path === stream.path).length === 1,
    cutWhen: (text) => text.includes("event: pass-ended"),
  });
  tokens.python = (await issueToken({ accountName: "python participant" })).token;
  tokens.cli = (await issueToken({ accountName: "cli participant" })).token;
  // the Python client as the guide says to fetch it: the arena's /client.py, saved as speculatorarena/client.py
  pythonDir = join(base, "python-client");
  await mkdir(join(pythonDir, "speculatorarena"), { recursive: true });
  const served = await fetch(`${appUrl}/client.py`);
  expect(served.status).toBe(200);
  expect(served.headers.get("x-speculatorarena-version")).toMatch(/^\d+\.\d+\.\d+\+protocol\.\d+$/);
  await writeFile(join(pythonDir, "speculatorarena", "client.py"), await served.text());
});

afterEach((context) => {
  if (context.task.result?.state === "fail") failed = true;
});

afterAll(async () => {
  if (failed) console.log(output.join("\n"));
  for (const child of running) child.kill("SIGTERM");
  await proxy?.close();
  await app?.stop();
  await ctx.teardown();
  await rm(base, { recursive: true, force: true }).catch(() => undefined);
});

describe("the participant's clients against the arena", () => {
  it("refuse bad arguments, a bad token and an engine directory without launch.sh, naming each, and spend nothing", async () => {
    const noLaunch = join(base, "no-launch");
    await mkdir(noLaunch);
    await writeFile(join(noLaunch, "serve.sh"), "#!/bin/sh\n", { mode: 0o755 });
    const submit = (engine: string, task = "qwen3-8b") => [
      "submit",
      "--task",
      task,
      "--engine",
      engine,
      "--profile",
      "ci",
    ];
    for (const client of ["python", "cli"] as const) {
      const badTask = await run(client, submit(engineDir, "qwen9-1b"));
      expect(badTask.code, client).toBe(2);
      expect(badTask.err, client).toMatch(/--task.*qwen3-8b/);
      const badRevision = await run(client, [...submit(engineDir), "--speculator", "org/repo@main"]);
      expect(badRevision.code, client).toBe(2);
      expect(badRevision.err, client).toMatch(/--speculator.*exact commit after @: 40 lowercase hex characters/);
      const badToken = await run(client, submit(engineDir), "spa_not-a-token-of-this-arena");
      expect(badToken.code, client).toBe(4);
      expect(badToken.err, client).toMatch(
        /the arena refused the request \(401 unauthorized\): wrong token: no account has this token; check SPECULATORARENA_TOKEN/,
      );
      const notAToken = await run(client, submit(engineDir), "hf_abc");
      expect(notAToken.code, client).toBe(2);
      expect(notAToken.err, client).toMatch(
        /SPECULATORARENA_TOKEN is not an arena token: arena tokens start with spa_/,
      );
      const missing = await run(client, submit(noLaunch));
      expect(missing.code, client).toBe(3);
      expect(missing.err, client).toContain(`engine directory ${noLaunch}: has no launch.sh at its top`);
    }
    expect(await charges()).toBe(0);
    expect(await db().submission.count()).toBe(0);
    // ten client processes one after another: 37–80 s in fresh clones' CI on two crowded cores, and once past 120 s
  }, 240_000);

  it("submit, follow each evaluation to its end across a dropped stream, then print its status and the board", async () => {
    const common = ["--engine", engineDir, "--kind", "eagle3", "--profile", "ci", "--wait"];
    const [python, cli] = await Promise.all([
      run("python", ["submit", "--task", "qwen3-8b", "--split", "dev", "--method", "sim EAGLE, Python", ...common]),
      run("cli", ["submit", "--task", "qwen3-8b", "--split", "test", "--method", "sim EAGLE, CLI", ...common]),
    ]);
    const ids: Record<string, string> = {};
    for (const [client, ran] of [
      ["python", python],
      ["cli", cli],
    ] as const) {
      const id = /submitted (\S+): /.exec(ran.out)?.[1];
      expect(id, `${client}: ${ran.out}\n${ran.err}`).toBeDefined();
      ids[client] = id!;
      const evaluation = await db().evaluation.findFirstOrThrow({ where: { submissionId: id } });
      // a newcomer's test evaluation on a fresh clone scores as a dev one does
      expect(evaluation.status, `${client}: ${evaluation.reason}\n${evaluation.logTail ?? ""}`).toBe("scored");
      expect(ran.code, `${client}: ${ran.out}\n${ran.err}`).toBe((evaluation.specscore ?? 0) > 0 ? 0 : 1);
      // the stream was cut once a pass had ended, and resumed after the last event the client had
      const streams = proxy.streams.filter((s) => s.path.includes(id!));
      expect(streams[0], client).toMatchObject({ lastEventId: null, dropped: true });
      expect(streams.slice(1).every((s) => !s.dropped)).toBe(true);
      expect(streams.length, client).toBeGreaterThanOrEqual(2);
      expect(Number(streams[1]!.lastEventId), client).toBeGreaterThan(0);
      expect(ran.err, client).toMatch(/the event stream dropped \(.*\); resuming after event \d+/);
      // every pass printed exactly once, in the order the pod played them, none lost to the drop
      const lines = ran.out.split("\n");
      const at = PASSES.map(({ engine, workload, pass }) => {
        const found = lines.filter((l) => new RegExp(`^\\s+${engine}\\s+${workload}\\s+pass ${pass}/3\\b`).test(l));
        expect(found, `${client} ${engine} ${workload} ${pass}`).toHaveLength(1);
        return lines.indexOf(found[0]!);
      });
      expect(at).toEqual([...at].sort((a, b) => a - b));
      if (client === "cli") expect(ran.out).toMatch(/candidate solo pass 1\/3 \[█{20}\] done {2}\d+ requests?/);
      expect(ran.out, client).toMatch(/status scored/);
      expect(ran.out, client).toMatch(/SpecScore \d\.\d{3}/);
    }
    expect(await charges()).toBe(2);

    for (const client of ["python", "cli"] as const) {
      const status = await run(client, ["status", ids[client]!]);
      expect(status.code, client).toBe(0);
      expect(status.out, client).toContain(
        `submission ${ids[client]}: qwen3-8b · ${client === "cli" ? "test" : "dev"} · profile ci`,
      );
      expect(status.out, client).toMatch(/evaluation \S+: scored/);
      expect(status.out, client).toMatch(/(pass|FAIL) {2}device memory +\d+\.\d GiB +limit ≤ \d+\.\d GiB/);
      expect(status.out, client).toMatch(/solo \d+\.\d\d× \(passes [\d., ]+\)/);
      expect(status.out, client).toContain(`page: ${proxy.url}/evaluations/`);
      const board = await run(client, ["board", "--task", "qwen3-8b"]);
      expect(board.code, client).toBe(0);
      expect(board.out, client).toContain("qwen3-8b board (protocol 1)");
      expect(board.out, client).toMatch(/runs under test profiles \(never ranked\):/);
      expect(board.out, client).toMatch(/dev\/ci .* python participant · sim EAGLE, Python eagle3/);
      expect(board.out, client).toMatch(/test\/ci .* cli participant · sim EAGLE, CLI eagle3/);
      const budget = await run(client, ["budget"]);
      expect(budget.code, client).toBe(0);
      expect(budget.out, client).toMatch(
        client === "cli" ? /qwen3-8b +test 2 of 3 left \(1 used\)/ : /qwen3-8b +dev +19 of 20 left \(1 used\)/,
      );
    }
    // a finished evaluation's stream is replayed to its end at once
    const again = await run("cli", ["watch", ids.python!]);
    expect(again.code, again.err).toBe(python.code);
    expect(again.out.match(/^status scored/gm)).toHaveLength(1);
    expect(again.out.match(/^ +(candidate|stock) +(solo|team|busy) +pass \d\/3 \[/gm)).toHaveLength(18);
  }, 540_000);
});
