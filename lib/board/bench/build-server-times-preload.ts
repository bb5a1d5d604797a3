import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const PRELOAD_SOURCE = fileURLToPath(new URL("./server-times-preload.ts", import.meta.url));

/** Builds the server-times preload as one CommonJS file for `node --require`, logging to `logPath`; returns its path. */
export function buildServerTimesPreload(outDir: string, logPath: string): string {
  const outfile = join(outDir, "server-times-preload.cjs");
  mkdirSync(dirname(outfile), { recursive: true });
  buildSync({
    entryPoints: [PRELOAD_SOURCE],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    define: { SERVER_TIMES_LOG: JSON.stringify(logPath) },
  });
  return outfile;
}
