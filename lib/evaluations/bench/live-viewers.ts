/**
 * Live viewers of one running evaluation on one web process (issue 18, target 2).
 *
 *   npx tsx lib/evaluations/bench/live-viewers.ts [--viewers 1000] [--rate 5] [--seconds 30] [--churn 300]
 *     [--churn-seconds 30]
 *
 * This process is the web process: the app's real route handlers (`serveApp`, as the API tests serve them) on a real
 * socket, over a fresh migrated arena database (the test server's) and the test Redis. It also appends the events
 * through `appendEvent`, as a worker would. The viewers are plain HTTP SSE readers in a child process, so their CPU is
 * not counted as the server's. Each event carries the moment its append began (`performance.timeOrigin + now()`, one
 * clock for both processes); each viewer stamps its receipt, and delivery latency is the difference.
 *
 * Phases: all viewers connect (memory per viewer: heap and RSS after a forced GC, minus the same before, divided by
 * the viewers); steady (`--rate` events a second for `--seconds`); churn (every second `--churn` viewers, drawn at
 * random, drop their connection and reconnect 0–1 s later with Last-Event-ID, while events keep coming); end (the
 * evaluation is cancelled, a final status that ends every stream). Every viewer must then hold every event of the log
 * once and in order, and the channel must have had one Redis subscription throughout and none after.
 */
import { type ChildProcess, fork } from "node:child_process";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { redis } from "../../queue/connection";
import { eventHub } from "../../queue/event-hub";
import { serveApp } from "../../testing/app-routes";
import { setupArenaTestContext } from "../../testing/arena-test-context";
import { queuedSubmission } from "../../testing/queued-submission";
import { appendEvent, eventsChannel } from "../append-event";
import { moveEvaluation } from "../move-evaluation";

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function quantile(sorted: Float64Array | number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

// ---------------------------------------------------------------- the viewers (child process)

type ToClient =
  | { cmd: "connect"; url: string; viewers: number }
  | { cmd: "phase"; name: string }
  | { cmd: "churn"; count: number }
  | { cmd: "finish" };

interface Summary {
  phase: string;
  deliveries: number;
  replayed: number;
  p50: number;
  p99: number;
  max: number;
}

type FromClient =
  | { kind: "connected"; viewers: number; ms: number }
  | { kind: "churned"; dropped: number }
  | { kind: "phase"; summary: Summary }
  | {
      kind: "done";
      ended: number;
      inOrder: number;
      viewers: number;
      expected: number;
      reconnects: number;
      problems: string[];
    };

class Viewer {
  ids: number[] = [];
  lastId = 0;
  ended = false;
  reconnecting = false;
  private current: { destroy(): void } | undefined;
  private connectedAt = 0;

  constructor(
    private readonly url: string,
    private readonly onLatency: (ms: number, replayed: boolean) => void,
  ) {}

  /** Opens a connection; resolves once the state event (sent after the server subscribed) arrives. */
  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (this.lastId > 0) headers["last-event-id"] = String(this.lastId);
      const req = httpRequest(this.url, { agent: false, headers });
      this.current = req;
      let buffer = "";
      let opened = false;
      req.on("response", (res: IncomingMessage) => {
        if (res.statusCode !== 200) return reject(new Error(`answered ${res.statusCode}`));
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let cut = buffer.indexOf("\n\n");
          while (cut >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            cut = buffer.indexOf("\n\n");
            if (this.take(block) === "state" && !opened) {
              // subscribed: what was appended before this came by replay, not live
              this.connectedAt = now();
              opened = true;
              resolve();
            }
          }
        });
        res.on("end", () => {
          if (this.current === req) this.ended = true;
        });
      });
      req.on("error", (error) => {
        if (!opened) reject(error);
      });
      req.end();
    });
  }

  private take(block: string): string | undefined {
    let id: number | undefined;
    let event: string | undefined;
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = Number(line.slice(4));
      else if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data += line.slice(6);
    }
    if (id === undefined) return event;
    const received = now();
    this.ids.push(id);
    this.lastId = id;
    if (event === "bench") {
      const at = (JSON.parse(data) as { appendAt: number }).appendAt;
      this.onLatency(received - at, at < this.connectedAt);
    }
    return event;
  }

  drop(): void {
    const c = this.current;
    this.current = undefined;
    c?.destroy();
  }
}

async function runViewers(): Promise<void> {
  const send = (m: FromClient) => process.send?.(m);
  let viewers: Viewer[] = [];
  let phase = "connect";
  let latencies: number[] = [];
  let replayed = 0;
  let reconnects = 0;
  const onLatency = (ms: number, wasReplayed: boolean) => {
    if (wasReplayed) replayed += 1;
    else latencies.push(ms);
  };
  const summarise = (): Summary => {
    const sorted = Float64Array.from(latencies).sort();
    const s = {
      phase,
      deliveries: sorted.length,
      replayed,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted.at(-1) ?? Number.NaN,
    };
    latencies = [];
    replayed = 0;
    return s;
  };
  process.on("message", async (m: ToClient) => {
    if (m.cmd === "connect") {
      const started = now();
      viewers = Array.from({ length: m.viewers }, () => new Viewer(m.url, onLatency));
      // in waves, as a page's readers arrive, not one SYN flood
      for (let i = 0; i < viewers.length; i += 100)
        await Promise.all(viewers.slice(i, i + 100).map((v) => v.connect()));
      send({ kind: "connected", viewers: viewers.length, ms: now() - started });
    } else if (m.cmd === "phase") {
      send({ kind: "phase", summary: summarise() });
      phase = m.name;
    } else if (m.cmd === "churn") {
      // a viewer still waiting to reconnect is not drawn again: one connection per viewer, as a browser tab holds
      const open = viewers.filter((v) => !v.ended && !v.reconnecting);
      const drawn = new Set<Viewer>();
      while (drawn.size < Math.min(m.count, open.length)) drawn.add(open[Math.floor(Math.random() * open.length)]!);
      for (const v of drawn) {
        v.drop();
        reconnects += 1;
        v.reconnecting = true;
        const reconnect = () =>
          v.connect().then(
            () => {
              v.reconnecting = false;
            },
            (error: unknown) => {
              process.stderr.write(`reconnect failed, again in 1 s: ${String(error)}\n`);
              setTimeout(reconnect, 1000);
            },
          );
        setTimeout(reconnect, Math.random() * 1000);
      }
      send({ kind: "churned", dropped: drawn.size });
    } else if (m.cmd === "finish") {
      send({ kind: "phase", summary: summarise() });
      for (let i = 0; i < 300 && viewers.some((v) => !v.ended); i++) await sleep(100);
      const expectedLast = Math.max(...viewers.map((v) => v.lastId));
      const problems: string[] = [];
      let inOrder = 0;
      for (const [n, v] of viewers.entries()) {
        const ok = v.ids.length === expectedLast && v.ids.every((id, i) => id === i + 1);
        if (ok) inOrder += 1;
        else if (problems.length < 5) {
          const dupes = v.ids.length - new Set(v.ids).size;
          problems.push(`viewer ${n}: ${v.ids.length} events, ${dupes} twice, last ${v.lastId}, ended ${v.ended}`);
        }
      }
      send({
        kind: "done",
        ended: viewers.filter((v) => v.ended).length,
        inOrder,
        viewers: viewers.length,
        expected: expectedLast,
        reconnects,
        problems,
      });
    }
  });
}

// ---------------------------------------------------------------- the web process (this one)

function gcNow(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

function memory(gc: () => void) {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

async function main(): Promise<void> {
  const viewersWanted = arg("viewers", 1000);
  const rate = arg("rate", 5);
  const seconds = arg("seconds", 30);
  const churnPerSecond = arg("churn", 300);
  const churnSeconds = arg("churn-seconds", 30);
  const gc = gcNow();

  // every viewer here comes from 127.0.0.1; in life they come from as many addresses (the limiter still runs)
  const ctx = await setupArenaTestContext({ API_REQUESTS_PER_MINUTE_PER_ADDRESS: "10000000" });
  const created = await queuedSubmission("bench-viewers");
  const evaluationId = created.evaluationId;
  await moveEvaluation(evaluationId, "running", { phase: "candidate-timed" });
  const server = await serveApp();
  const url = `${server.url}/api/submissions/${created.submissionId}/events`;
  const numsub = async () =>
    Number(((await redis().pubsub("NUMSUB", eventsChannel(evaluationId))) as [string, number])[1]);

  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ["--viewers-process"], {
    execArgv: process.execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const inbox: FromClient[] = [];
  const waiters: (() => void)[] = [];
  child.on("message", (m: FromClient) => {
    inbox.push(m);
    for (const w of waiters.splice(0)) w();
  });
  child.on("exit", (code) => {
    if (code !== 0 && code !== null) {
      console.error(`the viewers' process exited with ${code}`);
      process.exit(1);
    }
  });
  const next = async <K extends FromClient["kind"]>(kind: K): Promise<Extract<FromClient, { kind: K }>> => {
    for (;;) {
      const i = inbox.findIndex((m) => m.kind === kind);
      if (i >= 0) return inbox.splice(i, 1)[0] as Extract<FromClient, { kind: K }>;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const tell = (m: ToClient) => child.send(m);

  // warm the route, Prisma and the hub with one viewer's worth of work before the baseline
  await fetch(url, { headers: { accept: "text/event-stream" }, signal: AbortSignal.timeout(500) })
    .then((r) => r.body?.cancel())
    .catch(() => undefined);
  await sleep(300);
  const before = memory(gc);

  tell({ cmd: "connect", url, viewers: viewersWanted });
  const connected = await next("connected");
  const subscriptionsConnected = await numsub();
  let seq = 0;
  const appendLatencies: number[] = [];
  const append = async () => {
    seq += 1;
    const at = now();
    await appendEvent(evaluationId, "bench", { appendAt: at, n: seq, line: `engine log line ${seq}` });
    appendLatencies.push(now() - at);
  };
  await append();
  await sleep(500);
  const after = memory(gc);
  tell({ cmd: "phase", name: "steady" });
  await next("phase");

  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpuSteady = process.cpuUsage();
  const steadyStarted = now();
  const gap = 1000 / rate;
  for (let i = 0; i < seconds * rate; i++) {
    const due = steadyStarted + i * gap;
    await sleep(Math.max(0, due - now()));
    await append();
  }
  await sleep(300);
  const steadyCpu = process.cpuUsage(cpuSteady);
  const steadyWall = now() - steadyStarted;
  const steadyLoop = { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
  loop.reset();
  const cpuChurn = process.cpuUsage();
  tell({ cmd: "phase", name: "churn" });
  const steady = (await next("phase")).summary;

  const churnStarted = now();
  let maxSubscriptions = 0;
  let minSubscriptions = Number.POSITIVE_INFINITY;
  let churned = 0;
  for (let s = 0; s < churnSeconds; s++) {
    tell({ cmd: "churn", count: churnPerSecond });
    churned += (await next("churned")).dropped;
    for (let i = 0; i < rate; i++) {
      const due = churnStarted + (s * rate + i) * gap;
      await sleep(Math.max(0, due - now()));
      await append();
    }
    const subs = await numsub();
    maxSubscriptions = Math.max(maxSubscriptions, subs);
    minSubscriptions = Math.min(minSubscriptions, subs);
  }
  await sleep(1500);
  const churnCpu = process.cpuUsage(cpuChurn);
  const churnWall = now() - churnStarted;
  const churnLoop = { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
  loop.disable();
  await moveEvaluation(evaluationId, "cancelled", { reason: "benchmark over" });
  tell({ cmd: "finish" });
  const churn = (await next("phase")).summary;
  const done = await next("done");
  let subscriptionsAfter = await numsub();
  for (let i = 0; i < 50 && subscriptionsAfter > 0; i++) {
    await sleep(20);
    subscriptionsAfter = await numsub();
  }
  const channelsAfter = eventHub().channelCount();

  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const kib = (x: number) => `${(x / 1024).toFixed(1)} KiB`;
  const cpu = (u: NodeJS.CpuUsage, wallMs: number) => `${(((u.user + u.system) / 1000 / wallMs) * 100).toFixed(0)}%`;
  const pass = (ok: boolean) => (ok ? "met" : "MISSED");
  const appendSorted = Float64Array.from(appendLatencies).sort();
  const n = connected.viewers;
  const lines = [
    `live viewers: ${n} SSE clients of one running evaluation, one web process (the viewers in a child process)`,
    `  connected in ${ms(connected.ms)}; appendEvent itself p50 ${ms(quantile(appendSorted, 0.5))}, p99 ${ms(quantile(appendSorted, 0.99))}`,
    `  memory per viewer: heap ${kib((after.heap - before.heap) / n)}, RSS ${kib((after.rss - before.rss) / n)}  (reported; heap ${(before.heap / 2 ** 20).toFixed(0)} → ${(after.heap / 2 ** 20).toFixed(0)} MiB, RSS ${(before.rss / 2 ** 20).toFixed(0)} → ${(after.rss / 2 ** 20).toFixed(0)} MiB)`,
    `  Redis subscriptions of the channel (PUBSUB NUMSUB) with ${n} viewers: ${subscriptionsConnected}  (target 1: ${pass(subscriptionsConnected === 1)})`,
    `steady: ${seconds * rate} events at ${rate}/s, ${steady.deliveries} deliveries (expected ${n * seconds * rate})`,
    `  append → receipt p50 ${ms(steady.p50)}, p99 ${ms(steady.p99)}, max ${ms(steady.max)}  (target p99 < 250 ms: ${pass(steady.p99 < 250 && steady.deliveries === n * seconds * rate)})`,
    `  web process: CPU ${cpu(steadyCpu, steadyWall)} of a core (appends included), event-loop delay p99 ${ms(steadyLoop.p99)}, max ${ms(steadyLoop.max)}`,
    `churn: ${churned} disconnects in ${churnSeconds} s (${churnPerSecond}/s, reconnecting 0–1 s later with Last-Event-ID), ${churnSeconds * rate} events`,
    `  live deliveries ${churn.deliveries}, replayed on reconnect ${churn.replayed}; append → receipt p50 ${ms(churn.p50)}, p99 ${ms(churn.p99)}, max ${ms(churn.max)}  (target p99 < 250 ms: ${pass(churn.p99 < 250)})`,
    `  web process: CPU ${cpu(churnCpu, churnWall)} of a core, event-loop delay p99 ${ms(churnLoop.p99)}, max ${ms(churnLoop.max)}`,
    `  Redis subscriptions during churn: ${minSubscriptions}–${maxSubscriptions}  (target 1: ${pass(minSubscriptions === 1 && maxSubscriptions === 1)}); after every stream ended: ${subscriptionsAfter}, hub channels ${channelsAfter}`,
    `  every event once and in order (1..${done.expected}), stream ended on the final status: ${done.inOrder}/${done.viewers} viewers, ${done.ended} ended  (target all: ${pass(done.inOrder === done.viewers && done.ended === done.viewers)})`,
    ...done.problems.map((p) => `    ${p}`),
  ];
  console.log(lines.join("\n"));

  child.kill();
  await server.close();
  await eventHub().close();
  await ctx.teardown();
}

if (process.argv.includes("--viewers-process")) {
  void runViewers();
} else {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
