import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../arena-stack";
import { EVALUATION_FILE_SECONDS } from "./evaluation-file-seconds";
import { longestFirst } from "./longest-first";

describe("longestFirst", () => {
  it("orders by time, longest first, unknown ones before all, ties as given", () => {
    const seconds: Record<string, number> = { a: 30, b: 200, c: 30, d: 90 };
    expect(longestFirst(["a", "b", "c", "x", "d", "y"], (k) => seconds[k])).toEqual(["x", "y", "b", "d", "a", "c"]);
  });
});

function e2eFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : e2eFiles(full);
    return entry.name.endsWith(".e2e.test.ts") ? [relative(repoRoot, full)] : [];
  });
}

describe("EVALUATION_FILE_SECONDS", () => {
  it("names only files that exist, and every whole-evaluation file but the red-team matrix's", () => {
    for (const file of Object.keys(EVALUATION_FILE_SECONDS)) expect(existsSync(join(repoRoot, file)), file).toBe(true);
    const files = e2eFiles(join(repoRoot, "lib")).filter((f) => !f.startsWith("lib/red-team/"));
    expect(files.sort()).toEqual(Object.keys(EVALUATION_FILE_SECONDS).sort());
  });
});
