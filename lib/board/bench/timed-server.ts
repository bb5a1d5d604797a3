/**
 * `npx tsx lib/board/bench/timed-server.ts [--port 3100]`: `next start` (after `next build`) with the server-times
 * preload loaded, for `board-bench.ts --url … --server-times`. The environment is passed through as given (the
 * database, NEXTAUTH_SECRET, NEXTAUTH_URL); the log starts empty at every start.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { childEnv, repoRoot } from "@/lib/ops/arena-stack";
import { buildServerTimesPreload } from "./build-server-times-preload";
import { SERVER_TIMES_LOG } from "./server-times-log";

const { port } = z
  .object({ port: z.coerce.number().int().min(1).max(65535).default(3100) })
  .parse(parseArgs({ options: { port: { type: "string" } } }).values);

const log = join(repoRoot, SERVER_TIMES_LOG);
const preload = buildServerTimesPreload(join(repoRoot, ".build/bench"), log);
writeFileSync(log, "");

const child = spawn(join(repoRoot, "node_modules/.bin/next"), ["start", "-p", String(port)], {
  cwd: repoRoot,
  stdio: "inherit",
  env: childEnv({ NODE_OPTIONS: `--require ${preload}` }) as NodeJS.ProcessEnv,
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
