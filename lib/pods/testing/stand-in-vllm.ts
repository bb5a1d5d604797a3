import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The stand-in `vllm` (a Python 3 script): see its docstring for what it does as the real one does. */
export const STAND_IN_VLLM = fileURLToPath(new URL("./stand-in-vllm/vllm", import.meta.url));

/** Fixtures: LowBArena-style vLLM plugins (its guide, "Plugins"), one that installs offline and one that cannot. */
export const VLLM_PLUGIN_FIXTURES = fileURLToPath(new URL("./vllm-plugins/", import.meta.url));

/** What the stand-in recorded of one start. */
export const standInRecordSchema = z.object({
  argv: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  uid: z.number().int(),
  user: z.string(),
  plugins: z.array(z.string()),
  userSite: z.string(),
});
export type StandInRecord = z.infer<typeof standInRecordSchema>;

export interface StandInVllm {
  /** Put first on an engine's PATH: it holds `vllm`, a wrapper that runs the stand-in. */
  binDir: string;
  /** Where the stand-in writes one JSON record per start. */
  recordDir: string;
  records(): Promise<StandInRecord[]>;
  /** Resolves with the first record, polling until the deadline. */
  firstRecord(timeoutMs?: number): Promise<StandInRecord>;
}

/**
 * Makes `<root>/bin/vllm`: a wrapper that runs the stand-in with `--stand-in-record <root>/records`, its own
 * option, so the record's place travels on the stand-in's command line and never in what engines receive.
 * Both folders are open to any engine user (tests run engines under unused uids).
 */
export async function makeStandInVllm(root: string): Promise<StandInVllm> {
  const binDir = join(root, "bin");
  const recordDir = join(root, "records");
  await mkdir(binDir, { recursive: true });
  await mkdir(recordDir, { recursive: true });
  await chmod(root, 0o755);
  await chmod(binDir, 0o755);
  await chmod(recordDir, 0o777);
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  await writeFile(
    join(binDir, "vllm"),
    `#!/bin/sh\nexec python3 ${quote(STAND_IN_VLLM)} --stand-in-record ${quote(recordDir)} "$@"\n`,
    { mode: 0o755 },
  );
  const records = async () => {
    const names = (await readdir(recordDir)).filter((n) => n.endsWith(".json")).sort();
    return Promise.all(
      names.map(async (n) => standInRecordSchema.parse(JSON.parse(await readFile(join(recordDir, n), "utf8")))),
    );
  };
  return {
    binDir,
    recordDir,
    records,
    async firstRecord(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const [first] = await records();
        if (first) return first;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the stand-in vllm wrote no record in ${recordDir} within ${timeoutMs} ms`);
    },
  };
}

/** The value of a flag on a recorded command line (the next argument), or null when absent. */
export function flagValue(argv: readonly string[], flag: string): string | null {
  const i = argv.indexOf(flag);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1]! : null;
}
