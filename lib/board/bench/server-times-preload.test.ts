import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "@/lib/testing/until";
import { buildServerTimesPreload } from "./build-server-times-preload";

// a server that answers /slow 40 ms after the request, /fast at once, and prints its port
const SERVER = `
const http = require("node:http");
const server = http.createServer((req, res) => {
  const answer = () => res.end("x".repeat(1000));
  if (req.url.startsWith("/slow")) setTimeout(answer, 40); else answer();
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

let dir: string | undefined;
let server: ChildProcess | undefined;

afterEach(async () => {
  server?.kill("SIGTERM");
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the server-times preload", () => {
  it("logs each answer's URL and its time from the request to its last byte, in the server", async () => {
    dir = await mkdtemp(join(tmpdir(), "server-times-"));
    const log = join(dir, "times.log");
    const preload = buildServerTimesPreload(dir, log);
    const child = spawn(process.execPath, ["--require", preload, "-e", SERVER], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    server = child;
    const port = await new Promise<number>((resolve) => child.stdout!.once("data", (d) => resolve(Number(String(d)))));
    for (const path of ["/slow", "/fast", "/slow?x=1"]) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      expect((await res.text()).length).toBe(1000);
    }
    const lines = await until(
      async () => {
        const text = await readFile(log, "utf8").catch(() => "");
        const rows = text.split("\n").filter(Boolean);
        return rows.length === 3 ? rows : undefined;
      },
      5_000,
      50,
    );
    const rows = lines.map((l) => l.split("\t"));
    expect(rows.map(([url]) => url)).toEqual(["/slow", "/fast", "/slow?x=1"]);
    const [slow, fast, slowAgain] = rows.map(([, ms]) => Number(ms));
    expect(slow).toBeGreaterThanOrEqual(39);
    expect(slowAgain).toBeGreaterThanOrEqual(39);
    expect(fast).toBeLessThan(39);
  });
});
