import { describe, expect, it } from "vitest";
import { inspectEngineArchive } from "@/lib/engine-archive/inspect-archive";
import { packFolder } from "./pack-folder";

const text = (s: string) => new TextEncoder().encode(s);

describe("packFolder", () => {
  it("packs a chosen folder so the arena's archive check accepts it, launch.sh on top and executable", async () => {
    const { base64 } = await packFolder([
      { path: "my-engine/launch.sh", data: text("#!/bin/sh\nexec serve\n") },
      { path: "my-engine/plugin/speculator.py", data: text("x = 1\n") },
      { path: "my-engine/config/deep/a.json", data: text("{}") },
    ]);
    const inspected = await inspectEngineArchive(Buffer.from(base64, "base64"));
    const byPath = Object.fromEntries(inspected.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(["config/deep/a.json", "launch.sh", "plugin/speculator.py"]);
    expect(byPath["launch.sh"]!.mode & 0o111).not.toBe(0);
    expect(byPath["plugin/speculator.py"]!.mode & 0o111).toBe(0);
  });

  it("says what is wrong with a folder that is not an engine directory", async () => {
    await expect(packFolder([])).rejects.toThrow(/empty/);
    await expect(packFolder([{ path: "outer/inner/launch.sh", data: text("") }])).rejects.toThrow(
      /no launch\.sh at its top/,
    );
  });
});
