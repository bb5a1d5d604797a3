/**
 * The board's benchmark: `npx tsx lib/board/bench/board-bench.ts [--readers 50] [--requests 400] [--think-ms 1000]
 * [--skip-saturation] [--url URL] [--only TEXT] [--warmup 1500]` against DATABASE_URL's arena (seed it with
 * seed-scale.ts: 10,000 evaluations, 1,000 accounts).
 *
 * Each target is read by `--readers` concurrent readers until `--requests` answers came back, after one cold read
 * (the first after the boards changed) and `--warmup` untimed answers (see warm()): readers are people, who read a page for a while (a pause drawn uniformly
 * from 0 to twice `--think-ms`) before they ask for the next; then once more with no pause at all, every reader
 * asking again the moment an answer comes (saturation: the answers' rate is the server's, and a p95 past the target
 * there says how many readers it takes to queue). In-process (the default) it times the server's own work for each answer:
 * the data the page reads, through the same calls the page makes (`/`: both tasks' boards, the latest evaluations,
 * the registration flag, the active count and the measured durations; `/tasks/<task>`: the task's board; an evaluation page: getEvaluationPage), and the route
 * handler of `GET /api/protocol` with its body read; React's rendering of the page is not in it. With `--url` (a
 * `next start` after `next build`, serving this database) it times whole HTTP answers, rendering included, from
 * the request's write to the body's last byte. With `--server-times` as well (the server started by `timed-server.ts`),
 * it also prints each answer's server time, read from the server's own log (server-times-preload.ts): from the
 * request's headers parsed to its last byte handed to the socket. The targets are server times, so that figure is
 * judged; the round trip beside it adds this client's work and its wake-ups on the cores it shares with the server
 * (/api/protocol on 2 cores: p50 1.0 ms asked back to back, 2.3–2.9 ms asked every 25 ms, as readers ask).
 * Every figure is printed beside its target.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Agent, request } from "undici";
import { z } from "zod";
import { TASK_IDS } from "@/lib/protocol";
import { SERVER_TIMES_LOG } from "./server-times-log";

const args = z
  .object({
    readers: z.coerce.number().int().min(1).max(1000).default(50),
    requests: z.coerce.number().int().min(1).default(400),
    url: z.string().url().optional(),
    "think-ms": z.coerce.number().min(0).default(1000),
    /** Answers read back to back before each target is timed, not counted: a server in service is warm. */
    warmup: z.coerce.number().int().min(0).default(1500),
    "skip-saturation": z.boolean().default(false),
    /** With --url: also read each answer's server time from the log of the server `timed-server.ts` started. */
    "server-times": z.boolean().default(false),
    /** Only the targets whose name holds this text (`--only /tasks/`). */
    only: z.string().min(1).optional(),
  })
  .parse(
    parseArgs({
      options: {
        readers: { type: "string" },
        requests: { type: "string" },
        url: { type: "string" },
        "think-ms": { type: "string" },
        warmup: { type: "string" },
        "skip-saturation": { type: "boolean" },
        "server-times": { type: "boolean" },
        only: { type: "string" },
      },
    }).values,
  );

interface Target {
  name: string;
  targetMs: number;
  /** One answer: resolves when the whole of it is in hand; `i` < 0 for warm-up answers. */
  read: (i: number) => Promise<unknown>;
  /** With --url: whether a request path the server logged is one of this target's answers. */
  serves?: (url: string) => boolean;
}

const quantile = (sorted: number[], p: number) => {
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
};

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The first answers of a fresh process run code V8 has not optimised yet: /api/protocol took 4 ms at the median for
 * its first few hundred answers and 1.2 ms once warm. A server in service has answered thousands, so each target is
 * read `--warmup` times back to back first (evaluation pages from ids the timed reads never ask for, so none is cached).
 */
async function warm(t: Target): Promise<void> {
  let next = 1;
  await Promise.all(
    Array.from({ length: args.readers }, async () => {
      while (next <= args.warmup) await t.read(-next++);
    }),
  );
}

// the repository's root from this file, not lib/ops: `--url` loads only Node's modules, undici and zod (a GPU host's pack)
const serverLog = join(fileURLToPath(new URL("../../../", import.meta.url)), SERVER_TIMES_LOG);
/** Longer than the preload's 200 ms between appends: every answer before now is in the log after this. */
const logSettled = () => pause(500);

/** The server times of this target's answers appended to the log past `offset`, sorted. */
function serverTimes(t: Target, offset: number): number[] {
  // only what was appended since `offset`: the log holds every answer the server gave, warm-ups and other targets too
  const bytes = Buffer.alloc(statSync(serverLog).size - offset);
  const fd = openSync(serverLog, "r");
  try {
    readSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    closeSync(fd);
  }
  const text = bytes.toString("utf8");
  const times: number[] = [];
  for (const line of text.split("\n")) {
    const [url, ms] = line.split("\t");
    if (url && ms && t.serves?.(url)) times.push(Number(ms));
  }
  return times.sort((a, b) => a - b);
}

function verdict(p95: number, targetMs: number): string {
  return `(target < ${targetMs} ms: ${p95 < targetMs ? "met" : "NOT met"})`;
}

async function measure(t: Target, thinkMs: number): Promise<void> {
  const t0 = performance.now();
  await t.read(0);
  const cold = performance.now() - t0;
  await warm(t);
  const logged = args["server-times"] && t.serves;
  if (logged) await logSettled();
  const offset = logged ? statSync(serverLog).size : 0;
  const times: number[] = [];
  const answered = new Map<string, number[]>();
  let next = 1;
  const wall0 = performance.now();
  await Promise.all(
    Array.from({ length: args.readers }, async () => {
      // readers arrive spread over one pause, not all at once
      if (thinkMs > 0) await pause(Math.random() * 2 * thinkMs);
      while (next <= args.requests) {
        const i = next++;
        const a = performance.now();
        const how = await t.read(i);
        times.push(performance.now() - a);
        if (typeof how === "string") answered.set(how, [...(answered.get(how) ?? []), performance.now() - a]);
        if (thinkMs > 0) await pause(Math.random() * 2 * thinkMs);
      }
    }),
  );
  const wall = (performance.now() - wall0) / 1000;
  times.sort((a, b) => a - b);
  const p95 = quantile(times, 95);
  console.log(
    `  ${t.name.padEnd(34)} p50 ${quantile(times, 50).toFixed(2).padStart(7)}  p95 ${p95.toFixed(2).padStart(7)} ms ${logged ? "(round trip at this client)" : verdict(p95, t.targetMs)}  max ${times.at(-1)!.toFixed(2).padStart(7)}  cold ${cold.toFixed(1).padStart(6)} ms  ${(times.length / wall).toFixed(0)} answers/s${
      answered.size
        ? `  (${[...answered]
            .map(
              ([how, ms]) =>
                `${ms.length} ${how}${
                  answered.size > 1
                    ? ` p95 ${quantile(
                        ms.sort((x, y) => x - y),
                        95,
                      ).toFixed(1)} ms`
                    : ""
                }`,
            )
            .join(", ")})`
        : ""
    }`,
  );
  if (!logged) return;
  await logSettled();
  const server = serverTimes(t, offset);
  const sp95 = quantile(server, 95);
  console.log(
    `  ${"  server time".padEnd(34)} p50 ${quantile(server, 50).toFixed(2).padStart(7)}  p95 ${sp95.toFixed(2).padStart(7)} ms ${verdict(sp95, t.targetMs)}  max ${server.at(-1)?.toFixed(2).padStart(7)}  (${server.length} answers logged)`,
  );
}

/** Evaluation ids to read pages of: scored ones mostly, some of every other state. */
async function evaluationIds(): Promise<string[]> {
  const { db } = await import("@/lib/db/client");
  const scored = await db().evaluation.findMany({ where: { status: "scored" }, select: { id: true }, take: 600 });
  const other = await db().evaluation.findMany({
    where: { status: { not: "scored" } },
    select: { id: true },
    take: 200,
  });
  return [...scored, ...other].map((e) => e.id);
}

/**
 * One whole answer as a browser asks for it (compressed), its bytes read and not decoded: the time is the server's
 * answer, not this client's work, which shares the machine (fetch's own decoding and bookkeeping cost several ms an
 * answer on two busy cores). Keep-alive connections, one per reader, as browsers keep theirs.
 */
const agent = new Agent({ connections: args.readers, keepAliveTimeout: 30_000 });
/** Resolves to how the page cache answered (its x-arena-page-cache header; `app` where it did not). */
async function httpGet(url: string): Promise<string> {
  const res = await request(url, { dispatcher: agent, headers: { "accept-encoding": "gzip, deflate, br" } });
  for await (const _ of res.body) {
    // drained
  }
  if (res.statusCode !== 200) throw new Error(`${url}: HTTP ${res.statusCode}`);
  return String(res.headers["x-arena-page-cache"] ?? "app");
}

// The arena's modules are loaded only for what is measured: `--url --only /api/protocol` needs no database (and
// runs where only Node and undici are, such as a GPU host).
const usesDatabase = !args.url || !args.only || "GET /evaluations/<id>".includes(args.only);
if (usesDatabase) {
  const { db } = await import("@/lib/db/client");
  const counts = await db().evaluation.groupBy({ by: ["status"], _count: true });
  const accounts = await db().account.count();
  const total = counts.reduce((a, c) => a + c._count, 0);
  console.log(
    `board benchmark: ${total} evaluations (${counts.map((c) => `${c._count} ${c.status}`).join(", ")}), ${accounts} accounts`,
  );
}
console.log(
  `${args.readers} concurrent readers, ${args.requests} answers a target; ${args.url ? `HTTP against ${args.url} (whole answers, rendering included)` : "in-process: the pages' data reads and the route handler (server work, React rendering not included)"}`,
);
const all = usesDatabase ? await evaluationIds() : [];
// timed reads and warm-up reads ask for disjoint evaluations: a warm-up never leaves a timed page cached
const ids = all.filter((_, k) => k % 2 === 0);
const warmIds = all.filter((_, k) => k % 2 === 1);
const pick = (i: number) => (i < 0 ? warmIds[-i % warmIds.length]! : ids[i % ids.length]!);

async function inProcessTargets(): Promise<Target[]> {
  const { GET: protocolRoute } = await import("@/app/api/protocol/route");
  const { activeEvaluations, profileDurations, recentEvaluations } = await import("@/lib/board/cached-reads");
  const { getEvaluationPage } = await import("@/lib/board/get-evaluation");
  const { listBoard } = await import("@/lib/board/list-board");
  const { isRegistrationOpen } = await import("@/lib/settings/registration");
  return [
    {
      name: "/ (its data)",
      targetMs: 50,
      read: () =>
        Promise.all([
          Promise.all(TASK_IDS.map((id) => listBoard(id))),
          recentEvaluations({ limit: 8, profiles: "full" }),
          recentEvaluations({ limit: 5, profiles: "test" }),
          isRegistrationOpen(),
          activeEvaluations(),
          profileDurations(),
        ]),
    },
    ...TASK_IDS.map((t) => ({
      name: `/tasks/${t} (its data)`,
      targetMs: 50,
      read: () => Promise.all([listBoard(t), activeEvaluations()]),
    })),
    { name: "/evaluations/<id> (its data)", targetMs: 50, read: (i: number) => getEvaluationPage(pick(i)) },
    { name: "GET /api/protocol (route handler)", targetMs: 5, read: () => protocolRoute().text() },
  ];
}

const targets: Target[] = args.url
  ? [
      { name: "GET /", targetMs: 50, read: () => httpGet(`${args.url}/`), serves: (url) => url === "/" },
      ...TASK_IDS.map((t) => ({
        name: `GET /tasks/${t}`,
        targetMs: 50,
        read: () => httpGet(`${args.url}/tasks/${t}`),
        serves: (url: string) => url === `/tasks/${t}`,
      })),
      {
        name: "GET /evaluations/<id>",
        targetMs: 50,
        read: (i: number) => httpGet(`${args.url}/evaluations/${pick(i)}`),
        serves: (url) => url.startsWith("/evaluations/"),
      },
      {
        name: "GET /api/protocol",
        targetMs: 5,
        read: () => httpGet(`${args.url}/api/protocol`),
        serves: (url) => url === "/api/protocol",
      },
    ]
  : await inProcessTargets();
console.log(`${args.readers} readers, each pausing ${args["think-ms"]} ms on average between answers:`);
const chosen = targets.filter((t) => !args.only || t.name.includes(args.only));
if (chosen.length === 0) throw new Error(`--only ${args.only}: no target is named so`);
if (args["server-times"] && !args.url)
  throw new Error("--server-times: only with --url (in-process reads are server time)");
if (args["server-times"]) {
  try {
    statSync(serverLog);
  } catch {
    throw new Error(`--server-times: ${SERVER_TIMES_LOG} is missing: start the server with timed-server.ts`);
  }
}
for (const t of chosen) await measure(t, args["think-ms"]);
if (!args["skip-saturation"]) {
  console.log(`${args.readers} readers asking again at once (saturation):`);
  for (const t of chosen) await measure(t, 0);
}
if (usesDatabase) await (await import("@/lib/db/client")).db().$disconnect();
await agent.close();
