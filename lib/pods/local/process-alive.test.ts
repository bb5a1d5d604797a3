import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { processAlive, processStartTicks, sameProcessAlive } from "./process-alive";

describe("processAlive", () => {
  it("is true for a running process and false once it has exited and been reaped", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    await once(child, "spawn");
    expect(processAlive(child.pid!)).toBe(true);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(processAlive(child.pid!)).toBe(false);
  });

  it("counts a zombie (exited, its parent not reaping it) as dead", async () => {
    // bash forks `sleep 0`, then becomes `sleep 5`, which never reaps it
    const parent = spawn("bash", ["-c", "sleep 0 & echo $!; exec sleep 5"], { stdio: ["ignore", "pipe", "ignore"] });
    const [chunk] = (await once(parent.stdout!, "data")) as [Buffer];
    const zombie = Number.parseInt(chunk.toString(), 10);
    await new Promise((r) => setTimeout(r, 300));
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(processAlive(zombie)).toBe(false);
    parent.kill("SIGKILL");
  });

  it("counts a process it may not signal as alive", () => {
    // pid 1 exists on every system; a non-root user gets EPERM for it, root may signal it
    expect(processAlive(1)).toBe(true);
  });

  it("tells a process from a later one under the same pid by when it started", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    await once(child, "spawn");
    const ticks = processStartTicks(child.pid!);
    expect(ticks).toBeGreaterThan(processStartTicks(process.pid)!);
    expect(sameProcessAlive(child.pid!, ticks!)).toBe(true);
    expect(sameProcessAlive(child.pid!, undefined)).toBe(true);
    // as a reused pid looks: alive, started at another time
    expect(sameProcessAlive(child.pid!, ticks! - 1)).toBe(false);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(sameProcessAlive(child.pid!, ticks!)).toBe(false);
    expect(processStartTicks(child.pid!)).toBeNull();
  });
});
