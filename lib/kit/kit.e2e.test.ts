import { execFileSync, spawn } from "node:child_process";
import { lstat, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatGateLine, gateLines, scoreLines } from "../client/local/gate-lines";
import { CLIENT_VERSION } from "../client/versions";
import { resultRecordSchema } from "../gates/record/schema";
import { serveApp } from "../testing/app-routes";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { KIT_FOLDER } from "./build-kit";

// The participant's kit as the arena serves it (GET /kit.tar.gz, built on that first request), unpacked, and its
// local kit run on the kit's own Node against the simulated engines, as a participant without a GPU runs it: an
// honest engine and a cheating one (a perturbed target, as FP8 weights would be) at once, under the `ci` profile.

let ctx: ArenaTestContext;
let base: string;
let kit: string;
let app: Awaited<ReturnType<typeof serveApp>>;
const running = new Set<ReturnType<typeof spawn>>();

function local(engine: string, extra: string[] = []): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const args = ["local", "--task", "qwen3-8b", "--engine", engine, "--profile", "ci", "--sim-speed", "2", ...extra];
    const child = spawn(join(kit, "bin", "speculatorarena"), args, { cwd: kit, stdio: ["ignore", "pipe", "pipe"] });
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

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "kit-e2e-"));
  ctx = await setupArenaTestContext({ ARENA_DATA_DIR: join(base, "data") });
  app = await serveApp();
});

afterAll(async () => {
  // a run cut short stops its agent, which stops its engines
  for (const child of running) child.kill("SIGTERM");
  await app?.close();
  await ctx.teardown();
  await rm(base, { recursive: true, force: true }).catch(() => undefined);
});

describe("the kit", () => {
  it("is served at /kit.tar.gz, versioned with the arena, with its own Node", async () => {
    const response = await fetch(`${app.url}/kit.tar.gz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/gzip");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="speculatorarena-kit-${CLIENT_VERSION}.tar.gz"`,
    );
    const archive = Buffer.from(await response.arrayBuffer());
    expect(archive.length).toBe(Number(response.headers.get("content-length")));
    await writeFile(join(base, "kit.tar.gz"), archive);
    execFileSync("tar", ["-C", base, "-xzf", join(base, "kit.tar.gz")]);
    kit = join(base, KIT_FOLDER);
    expect((await readFile(join(kit, "VERSION"), "utf8")).trim()).toBe(CLIENT_VERSION);
    const node = await lstat(join(kit, "local", "node"));
    expect(node.isFile() && (node.mode & 0o111) !== 0).toBe(true);
    expect(execFileSync(join(kit, "bin", "speculatorarena"), ["--version"], { encoding: "utf8" })).toContain(
      CLIENT_VERSION,
    );
    // a second request is served from what the first built
    const again = await fetch(`${app.url}/kit.tar.gz`);
    expect(Buffer.from(await again.arrayBuffer()).equals(archive)).toBe(true);
    // a limit, not a wait: the first request builds the kit (bundles, its Node, gzip), 90 s of a fresh clone's CI on
    // the two-core kind without PCID and 184 s there with two more busy processes beside it
  }, 360_000);

  it("runs an honest engine and a cheating one end to end, and prints every gate's line: the cheat's a FAIL", async () => {
    const [honest, cheat] = await Promise.all([
      local(join(kit, "examples", "sim-eagle"), ["--json"]),
      local(join(kit, "examples", "sim-quantized")),
    ]);

    // --json: the record on stdout, the progress and the gate lines on stderr, printed from that record
    const parsed = resultRecordSchema.safeParse(JSON.parse(honest.out));
    // an unscored run prints {outcome, reason, record: null}: its reason and the agent's lines say why
    if (!parsed.success) throw new Error(`the honest run printed no record:\n${honest.out}\n${honest.err}`);
    const record = parsed.data;
    const expected = [...gateLines(record).map(formatGateLine), ...scoreLines(record)];
    const printed = honest.err.split("\n");
    for (const line of expected) expect(printed, honest.err).toContain(line);
    expect(printed.filter((l) => /^(ok|warn|FAIL) {1,2} /.test(l))).toHaveLength(8);
    expect(honest.err).toMatch(/candidate solo pass 1\/3 \[█{20}\] done/);
    expect(honest.err).toMatch(/stock {5}busy pass 3\/3 \[█{20}\] done/);
    const fidelity = gateLines(record).find((l) => l.key === "fidelity")!;
    expect(fidelity.verdict).toBe("ok");
    const passed = gateLines(record).every((l) => l.verdict !== "FAIL") && (record.specscore ?? 0) > 0;
    expect(honest.code).toBe(passed ? 0 : 1);

    const lines = cheat.out.split("\n");
    const gateLinesPrinted = lines.filter((l) => /^(ok|warn|FAIL) {1,2} /.test(l));
    expect(gateLinesPrinted, cheat.out + cheat.err).toHaveLength(8);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^FAIL {2}fixed texts' log-probabilities +0\.\d+ +limit ≤ 0\.001 {2}\(the target's log-probabilities on fixed texts differ from the stock engine's\)$/,
      ),
    );
    expect(cheat.out).toMatch(/^SpecScore 0\.000: /m);
    expect(cheat.code).toBe(1);
  }, 480_000);
});
