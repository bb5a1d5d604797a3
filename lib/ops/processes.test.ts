import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { sessionNice } from "./favour-session";
import { runPrefixedStep } from "./processes";

/** The session id of a process (/proc/<pid>/stat's sixth field, after the command's parenthesis). */
const sessionOf = (stat: string) => Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]);

describe("runPrefixedStep", () => {
  it("rejects with the failed tests the step printed, so the run's summary names them", async () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      const script = [
        'console.error("\\x1b[41m FAIL \\x1b[49m lib/a.e2e.test.ts > a whole evaluation");',
        'console.error("Error: the stock engine died during solo");',
        'console.error("");',
        'console.log("Test Files  1 failed (1)");',
        "process.exit(1);",
      ].join("\n");
      const run = runPrefixedStep("evaluations", process.execPath, ["-e", script]);
      await expect(run).rejects.toThrow(
        /exited with code 1; what failed:\nFAIL +lib\/a\.e2e\.test\.ts > a whole evaluation\n {4}Error: the stock engine died during solo$/,
      );
      expect(write.mock.calls.map(([line]) => String(line))).toContain("[evaluations] Test Files  1 failed (1)\n");
    } finally {
      write.mockRestore();
    }
  });

  it("settles soon after the step exits even when a process it left behind holds its output open", async () => {
    const script =
      'require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 8000)"], { stdio: "inherit", detached: true }).unref(); process.exit(3);';
    const started = Date.now();
    await expect(runPrefixedStep("left", process.execPath, ["-e", script])).rejects.toThrow(/exited with code 3$/);
    expect(Date.now() - started).toBeLessThan(6_000);
  });

  it("resolves when the step exits 0", async () => {
    await expect(runPrefixedStep("ok", process.execPath, ["-e", "process.exit(0)"])).resolves.toBeUndefined();
  });

  it("runs a favoured step in a session of its own, its CPU share raised where this user may raise it", async () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      const script = [
        'const { readFileSync } = require("node:fs");',
        'console.log("stat", readFileSync("/proc/self/stat", "utf8").trim());',
        // read a moment after its start: the share is raised once the spawn returns
        'setTimeout(() => console.log("autogroup", readFileSync("/proc/self/autogroup", "utf8").trim()), 300);',
      ].join("\n");
      await runPrefixedStep("favoured", process.execPath, ["-e", script], { favoured: true });
      const lines = write.mock.calls.map(([line]) => String(line));
      const stat = lines.find((l) => l.startsWith("[favoured] stat "))!.slice("[favoured] stat ".length);
      expect(sessionOf(stat)).toBe(Number(stat.split(" ")[0]));
      expect(sessionOf(stat)).not.toBe(sessionOf(readFileSync("/proc/self/stat", "utf8")));
      const ours = sessionNice(process.pid);
      const autogroup = lines.find((l) => l.startsWith("[favoured] autogroup "))!;
      // root (as CI runs here) may lower the nice value; anyone else keeps the default share, and the step still runs
      if (ours !== null) expect(autogroup).toMatch(process.getuid?.() === 0 ? / nice -10\n$/ : / nice 0\n$/);
    } finally {
      write.mockRestore();
    }
  });

  it("stops a favoured step's whole session when the caller is sent SIGTERM, then the caller as before", async () => {
    // a caller of its own (tsx, as npm test runs test-all), whose favoured step prints its shell's pid and waits
    const caller = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import { runPrefixedStep } from ${JSON.stringify(`${import.meta.dirname}/processes.ts`)};
         void runPrefixedStep("s", "bash", ["-c", "echo $$; sleep 60"], { favoured: true });`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    const step = await new Promise<number>((resolve) =>
      caller.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        const match = /\[s\] (\d+)\n/.exec(out);
        if (match) resolve(Number(match[1]));
      }),
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) => caller.once("exit", (_, signal) => resolve(signal)));
    caller.kill("SIGTERM");
    expect(await exited).toBe("SIGTERM");
    const alive = () => {
      try {
        process.kill(step, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 40 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe(false);
  });
});
