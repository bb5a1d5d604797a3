import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { PRIVATE_COVERS } from "../pods/sandbox/mount-plan";
import { repoRoot } from "./arena-stack";

const run = promisify(execFile);
const refused = (error: { code: number; stderr: string }) => error;

describe("a checkout where a local pod lays its own tmpfs", () => {
  it("is refused by npm test and npm run arena before anything is installed, with the reason and the way out", async () => {
    const base = await mkdtemp("/tmp/checkout-");
    try {
      await mkdir(join(base, "lib/ops"), { recursive: true });
      for (const file of ["bootstrap.sh", "test-all.sh", "arena.sh"])
        await cp(join(repoRoot, "lib/ops", file), join(base, "lib/ops", file));
      for (const entry of ["test-all.sh", "arena.sh"]) {
        const ran = await run("bash", [join(base, "lib/ops", entry)], { cwd: base }).then(() => null, refused);
        expect(ran?.code).toBe(1);
        expect(ran?.stderr).toContain(`this checkout is at ${base}: the arena cannot run from under /run, /tmp`);
        expect(ran?.stderr).toContain("Clone it elsewhere");
      }
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });

  it("is refused under every folder the pod covers (mount-plan's PRIVATE_COVERS), and this checkout is let through", async () => {
    const check = (root: string) =>
      run("bash", ["-c", 'source lib/ops/bootstrap.sh && ops_check_checkout_place "$0" && echo ok', root], {
        cwd: repoRoot,
      });
    for (const { target } of PRIVATE_COVERS) {
      const ran = await check(join(target, "someone/arena")).then(() => null, refused);
      expect(ran?.code, target).toBe(1);
    }
    expect((await check(repoRoot)).stdout.trim()).toBe("ok");
    expect((await check("/tmpfiles/arena")).stdout.trim()).toBe("ok");
  });
});
