import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { sendGreedyProbes } from "../../gates";
import { createJudgeAgent, streamChat, timedRequestBody } from "../../judge";
import { currentProtocol } from "../../protocol";
import { qwen3Tokenizer } from "../../tokenizer/packaged-qwen3";
import { engineStartSpec, type StartSpecInput } from "./start-spec";

const protocol = currentProtocol();
const base: Omit<StartSpecInput, "role" | "start" | "gpuMemoryUtilization"> = {
  port: 41234,
  taskId: "qwen3-8b",
  profile: "full",
  scratchRoot: "/pod/scratch",
  engineDir: "/pod/engine",
  stockEngineDir: "/pod/stock-engine",
  targetDir: "/pod/target",
  speculatorDir: "/pod/speculator",
  noSpeculatorDir: "/pod/scratch/no-speculator",
  login: "arena-engine",
  image: { PATH: "/usr/local/bin:/usr/bin:/bin", LD_LIBRARY_PATH: "/usr/local/cuda/lib64" },
  simulated: { ARENA_SIM_ENGINE: "/arena/sim-engine", SIM_DEVICE_FILE: "/pod/scratch/device/simulated-device.csv" },
};

/** The keys whose values differ between two environments. */
function differing(a: Record<string, string>, b: Record<string, string>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
}

describe("the timed start and the checks' restart of an engine", () => {
  for (const [role, timedStart, checksStart] of [
    ["candidate", 1, 3],
    ["stock", 2, 4],
  ] as const) {
    it(`differ for the ${role} only in the memory share the protocol fixes`, () => {
      const timed = engineStartSpec({
        ...base,
        role,
        start: timedStart,
        gpuMemoryUtilization: protocol.engine.gpuMemoryUtilization,
      });
      const checks = engineStartSpec({
        ...base,
        role,
        start: checksStart,
        gpuMemoryUtilization: protocol.engine.checksGpuMemoryUtilization,
      });
      expect(differing(timed.env, checks.env)).toEqual(["GPU_MEMORY_UTILIZATION"]);
      expect([timed.env.GPU_MEMORY_UTILIZATION, checks.env.GPU_MEMORY_UTILIZATION]).toEqual(["0.90", "0.80"]);
      // the same command, engine directory, and HOME/TMPDIR/working directory: no start count in any path
      expect(checks.argv).toEqual(timed.argv);
      expect(checks.engineDir).toBe(timed.engineDir);
      expect(checks.scratchDir).toBe(timed.scratchDir);
      expect(timed.scratchDir).toBe(`/pod/scratch/${role}`);
      expect(Object.values(timed.env).some((v) => /-\d\b/.test(v) && v.includes(role))).toBe(false);
      // only the operators' name of the start, never given to the engine, counts the starts
      expect([timed.name, checks.name]).toEqual([`${role}-${timedStart}`, `${role}-${checksStart}`]);
      expect(JSON.stringify(timed.env)).not.toContain(timed.name);
    });
  }

  it("gives the stock engine its own directory and the empty speculator, the candidate its own", () => {
    const c = engineStartSpec({ ...base, role: "candidate", start: 1, gpuMemoryUtilization: 0.9 });
    const s = engineStartSpec({ ...base, role: "stock", start: 2, gpuMemoryUtilization: 0.9 });
    expect([c.engineDir, c.env.SPECULATOR]).toEqual(["/pod/engine", "/pod/speculator"]);
    expect([s.engineDir, s.env.SPECULATOR]).toEqual(["/pod/stock-engine", "/pod/scratch/no-speculator"]);
    expect(c.argv).toEqual(["bash", "/pod/engine/launch.sh", "serve"]);
  });
});

describe("a greedy probe against a timed request, over a real socket", () => {
  it("is the timed request's body key for key, in the same order, only at temperature 0", async () => {
    const seen: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
    const server = createServer((req, res) => {
      let raw = "";
      req.on("data", (c) => {
        raw += c;
      });
      req.on("end", () => {
        seen.push({ headers: req.headers, body: JSON.parse(raw) });
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end('data: {"choices":[{"delta":{"content":"ok"}}]}\n\ndata: [DONE]\n\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const model = "Qwen/Qwen3-8B";
    const input = {
      model,
      messages: [{ role: "user" as const, content: "Why does the build fail?" }],
      tools: [{ type: "function" as const, function: { name: "bash", description: "run a shell command" } }],
      maxTokens: 256,
      seed: 17,
    };
    const dispatcher = createJudgeAgent();
    try {
      const timed = await streamChat(`${url}/v1/chat/completions`, timedRequestBody(input), { dispatcher });
      expect(timed.sawDone).toBe(true);
      // what the pod sends as a probe: the judge's greedyProbes body (timedRequestBody at temperature 0)
      const probe = await sendGreedyProbes(
        { baseUrl: url, model },
        [{ messages: input.messages, body: timedRequestBody(input, { temperature: 0 }) }],
        { tokenizer: qwen3Tokenizer() },
      );
      expect(probe.errors).toEqual([]);
    } finally {
      await dispatcher.close();
      await new Promise((resolve) => server.close(resolve));
    }
    const [timed, greedy] = seen as [(typeof seen)[0], (typeof seen)[0]];
    expect(Object.keys(greedy.body)).toEqual(Object.keys(timed.body));
    expect({ ...greedy.body, temperature: null }).toEqual({ ...timed.body, temperature: null });
    expect([timed.body.temperature, greedy.body.temperature]).toEqual([protocol.sampling.temperature, 0]);
  });
});
