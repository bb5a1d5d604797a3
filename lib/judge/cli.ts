/**
 * The judge's command line: `npm run judge -- run ...` and `npm run judge -- pair ...` (see cli-args.ts).
 * Plays workloads against any OpenAI-compatible server, shows progress and a result table, writes every record.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { request } from "undici";
import { qwen3TokenizerDir } from "@/lib/tokenizer/packaged-qwen3";
import { pairArgsZ, parseArgs, runArgsZ, USAGE } from "./cli-args";
import { progressPrinter, ratioTable, resultTable } from "./cli-display";
import { createJudgeAgent } from "./client/http-agent";
import { pairPasses } from "./pairing";
import { loadPool } from "./pool/load";
import { DEV_POOL_PATH } from "./pool/paths";
import { recordsReport } from "./report";
import { baseUrl } from "./run/run-pass";
import { planFor, runWorkload, type WorkloadResult } from "./run/run-workload";
import { createTokenCounter } from "./tokens/token-counter";

/** The served name from /v1/models when not given (vLLM lists it first). */
async function servedNameOf(url: string, given: string | undefined, fallback: string): Promise<string> {
  if (given) return given;
  try {
    const res = await request(`${baseUrl(url)}/v1/models`, { signal: AbortSignal.timeout(10_000) });
    const json = (await res.body.json()) as { data?: { id?: string }[] };
    return json.data?.[0]?.id ?? fallback;
  } catch {
    return fallback;
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== "run" && command !== "pair") throw new Error(USAGE);
  const args = command === "run" ? parseArgs(runArgsZ, rest) : parseArgs(pairArgsZ, rest);
  const pool = loadPool(args.pool ?? DEV_POOL_PATH);
  const seed = args.seed ?? randomBytes(8).toString("hex");
  const out = args.out ?? `judge-${command}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
  const dispatcher = createJudgeAgent();
  // the packaged Qwen3 files are only the command line's default (USAGE says so); the judge counts with what it is given
  const counter = await createTokenCounter(args.tokenizer ?? qwen3TokenizerDir());
  const plan = planFor({ pool, evaluationSeed: seed, task: args.task, profile: args.profile });
  const play = async (label: string, url: string, servedName: string): Promise<WorkloadResult[]> => {
    const results: WorkloadResult[] = [];
    for (const workload of args.workload) {
      results.push(
        await runWorkload({
          url,
          servedName,
          task: args.task,
          workload,
          profile: args.profile,
          pool,
          evaluationSeed: seed,
          plan,
          dispatcher,
          counter,
          thinkScale: args["think-scale"],
          onEvent: progressPrinter(process.stderr, label),
        }),
      );
    }
    return results;
  };
  const rows = (engine: string, results: WorkloadResult[]) =>
    results.flatMap((w) => w.passes.map((p) => ({ engine, summary: p.summary })));
  try {
    console.error(
      `seed ${seed}, profile ${args.profile}, ${pool.sessions.length} sessions in the pool, tokens counted with ${args.tokenizer ?? "the packaged Qwen3 tokenizer"}`,
    );
    if (command === "run" && "url" in args) {
      const name = await servedNameOf(args.url, args["served-name"], args.task);
      const results = await play("engine", args.url, name);
      console.log(resultTable(rows("engine", results)));
      writeFileSync(out, JSON.stringify(recordsReport(results, { command, seed, task: args.task })));
    } else if ("candidate" in args) {
      const cName = await servedNameOf(args.candidate, args["served-name"], args.task);
      const sName = await servedNameOf(args.stock, args["stock-served-name"] ?? args["served-name"], args.task);
      const candidate = await play("candidate", args.candidate, cName);
      const stock = await play("stock", args.stock, sName);
      const ratios = candidate.map((c, i) => pairPasses(c.passes, stock[i]!.passes));
      console.log(resultTable([...rows("candidate", candidate), ...rows("stock", stock)]));
      console.log("");
      console.log(ratioTable(ratios));
      const rs = ratios.map((r) => r.ratio ?? 0);
      if (rs.length === 3)
        console.log(
          `\ngeometric mean of r_w (SpecScore before the gates): ${Math.cbrt(rs[0]! * rs[1]! * rs[2]!).toFixed(3)}`,
        );
      writeFileSync(
        out,
        JSON.stringify({
          ...recordsReport([...candidate, ...stock], { command, seed, task: args.task }),
          engines: { candidate: candidate.length, stock: stock.length },
          ratios,
        }),
      );
    }
    console.error(`records written to ${out}`);
  } finally {
    await counter.close();
    await dispatcher.close();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
