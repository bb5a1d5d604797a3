import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { processAlive } from "./process-alive";

describe("processAlive", () => {
  it("is true for a running process and false once it has exited and been reaped", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    await once(child, "spawn");
    expect(processAlive(child.pid!)).toBe(true);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(processAlive(child.pid!)).toBe(false);
  });

  it("counts a process it may not signal as alive", () => {
    // pid 1 exists on every system; a non-root user gets EPERM for it, root may signal it
    expect(processAlive(1)).toBe(true);
  });
});
