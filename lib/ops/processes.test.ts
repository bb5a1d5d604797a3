import { describe, expect, it, vi } from "vitest";
import { runPrefixedStep } from "./processes";

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
});
