import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./arena-stack";

const run = promisify(execFile);

describe("a checkout under /tmp", () => {
  it("is refused by npm test and npm run arena before anything is installed, with the reason and the way out", async () => {
    const base = await mkdtemp("/tmp/checkout-");
    try {
      await mkdir(join(base, "lib/ops"), { recursive: true });
      for (const file of ["bootstrap.sh", "test-all.sh", "arena.sh"])
        await cp(join(repoRoot, "lib/ops", file), join(base, "lib/ops", file));
      for (const entry of ["test-all.sh", "arena.sh"]) {
        const ran = await run("bash", [join(base, "lib/ops", entry)], { cwd: base }).then(
          () => null,
          (error: { code: number; stderr: string }) => error,
        );
        expect(ran?.code).toBe(1);
        expect(ran?.stderr).toContain(`this checkout is at ${base}: the arena cannot run from under /tmp`);
        expect(ran?.stderr).toContain("Clone it elsewhere");
      }
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("lets this checkout through, which is not under one", async () => {
    const { stdout } = await run("bash", ["-c", "source lib/ops/bootstrap.sh && ops_check_checkout_place && echo ok"], {
      cwd: repoRoot,
    });
    expect(stdout.trim()).toBe("ok");
  });
});
