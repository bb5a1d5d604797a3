import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { SegmentEncoder, turnStartToken } from "@/lib/tokenizer/segment-encoder";
import { loadTargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { type AttackStrengths, strengthsLabel, strengthsProblem } from "./attack-strengths";
import { Rng } from "./model/rng";
import {
  buildToyModel,
  DRAFT_PARAMS,
  EAGLE_PARAMS,
  quantizedParams,
  TARGET_PARAMS,
  type ToyModel,
} from "./model/toy-model";
import { behaviourOf, DEFAULT_K, type Mode } from "./modes";
import { QWEN3_8B_B200 } from "./scheduler/cost-model";
import { BLOCK_SIZE, DeviceFile, type MemoryPlan, planMemory } from "./scheduler/device";
import { EngineCore } from "./scheduler/engine-core";
import { KvCache } from "./scheduler/kv-cache";
import { ApiError } from "./server/api-error";
import { handleChat, PromptCache } from "./server/chat-handler";
import { renderMetrics } from "./server/metrics";
import {
  type Drafter,
  ModelDrafter,
  NgramDrafter,
  SPECULATOR_METHODS,
  type SpeculatorMethod,
} from "./speculators/drafters";

export interface SimEngineOptions extends AttackStrengths {
  /** Default: from $SPECULATOR/sim-speculator.json when present, else "stock". */
  mode?: Mode;
  /** Draft tokens per step (default: 4 for ngram and draft, 3 for eagle). */
  k?: number;
  /** The speculator, for attack modes that should run with one (loose-accept defaults to eagle). */
  speculator?: SpeculatorMethod;
  /** A speculator checkpoint directory; its sim-speculator.json configures the speculator when no mode is given. */
  speculatorDir?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  servedName?: string;
  maxModelLen?: number;
  maxNumSeqs?: number;
  gpuMemoryUtilization?: number;
  prefixCaching?: boolean;
  simSpeed?: number;
  deviceFile?: string;
  /**
   * The target's tokenizer directory (`TOKENIZER`): tokenizer.json, tokenizer_config.json and the chat template,
   * which the engine renders, tokenizes, trains its toy target and stops with. Default: the packaged Qwen3 files.
   */
  tokenizerDir?: string;
  /** Share of requests the failing mode breaks. */
  failRate?: number;
  /** Requests the crash mode serves before it dies. */
  crashAfter?: number;
  /** Start-up and request log lines (default: none). */
  log?: (line: string) => void;
  /** What the crash mode does (default: the server drops every connection and stops listening). */
  onCrash?: () => void;
}

export interface SimEngine {
  url: string;
  port: number;
  servedName: string;
  mode: Mode;
  /** The parametric attacks it carries (none set: the mode alone). */
  strengths: AttackStrengths;
  speculator: SpeculatorMethod | null;
  k: number;
  memory: MemoryPlan;
  core: EngineCore;
  kv: KvCache;
  /** Stops serving, and publishes the device as idle. */
  close(): Promise<void>;
}

export const speculatorFileSchema = z.object({
  method: z.enum(SPECULATOR_METHODS, { error: "sim-speculator.json: method must be ngram, draft or eagle" }),
  k: z.number().int().min(1).max(16).optional(),
});

/** Reads `sim-speculator.json` from a speculator checkpoint directory, if there is one. */
export function readSpeculatorFile(dir: string | undefined): z.infer<typeof speculatorFileSchema> | null {
  if (!dir) return null;
  const path = join(dir, "sim-speculator.json");
  if (!existsSync(path)) return null;
  const parsed = speculatorFileSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) throw new Error(`${path}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  return parsed.data;
}

const models = new Map<string, ToyModel>();
/** The toy target on a tokenizer directory, trained once per directory in a process; a directory given must hold the files. */
function toyModelFor(tokenizerDir: string | undefined): ToyModel {
  const key = tokenizerDir ?? "";
  let m = models.get(key);
  if (!m) {
    m = buildToyModel(tokenizerDir ? loadTargetTokenizer(tokenizerDir) : qwen3Tokenizer(), TARGET_PARAMS);
    models.set(key, m);
  }
  return m;
}

function fmtGiB(mib: number): string {
  return (mib / 1024).toFixed(2);
}

/** Starts the simulated engine in this process, serving vLLM's HTTP API over a real socket. */
export async function startSimEngine(options: SimEngineOptions = {}): Promise<SimEngine> {
  const log = options.log ?? (() => {});
  const fromFile = options.mode ? null : readSpeculatorFile(options.speculatorDir);
  const mode: Mode = options.mode ?? fromFile?.method ?? "stock";
  const strengths: AttackStrengths = {
    ...(options.temperatureScale === undefined ? {} : { temperatureScale: options.temperatureScale }),
    ...(options.topK === undefined ? {} : { topK: options.topK }),
    ...(options.quantizeScale === undefined ? {} : { quantizeScale: options.quantizeScale }),
  };
  const problem = strengthsProblem(strengths);
  if (problem) throw new Error(problem);
  const behaviour = behaviourOf(mode, strengths);
  const speculator = options.speculator ?? behaviour.speculator ?? null;
  const k = options.k ?? fromFile?.k ?? (speculator ? DEFAULT_K[speculator] : 0);
  const servedName = options.servedName ?? "qwen3-8b";
  const maxModelLen = options.maxModelLen ?? 40_960;
  const utilization = behaviour.memoryUtilization ?? options.gpuMemoryUtilization ?? 0.9;
  const simSpeed = options.simSpeed ?? 1;
  const toy = toyModelFor(options.tokenizerDir);
  const tokenizer = toy.tokenizer;
  const target = behaviour.quantizeScale > 0 ? toy.make(quantizedParams(behaviour.quantizeScale)) : toy.target;
  const device = new DeviceFile(options.deviceFile);
  const memory = planMemory(utilization, speculator);

  const ts = () => new Date().toISOString().slice(5, 19).replace("T", " ");
  log(
    `INFO ${ts()} [api_server.py] vLLM API server version 0.25.1 (simulated engine: mode ${mode}${speculator ? `, ${speculator} k=${k}` : ""}${strengthsLabel(strengths) ? `, ${strengthsLabel(strengths)}` : ""})`,
  );
  log(
    `INFO ${ts()} [config.py] max_model_len=${maxModelLen}, max_num_seqs=${options.maxNumSeqs ?? 20}, prefix caching ${(options.prefixCaching ?? true) ? "enabled" : "disabled"}`,
  );
  device.write(1024);
  log(`INFO ${ts()} [gpu_model_runner.py] Model loading took ${fmtGiB(15_622)} GiB and 0.1 seconds`);
  log(`INFO ${ts()} [gpu_worker.py] Available KV cache memory: ${fmtGiB(memory.kvCacheMib)} GiB`);
  log(`INFO ${ts()} [kv_cache_utils.py] GPU KV cache size: ${memory.kvTokens.toLocaleString("en-US")} tokens`);
  log(
    `INFO ${ts()} [kv_cache_utils.py] Maximum concurrency for ${maxModelLen.toLocaleString("en-US")} tokens per request: ${(memory.kvTokens / maxModelLen).toFixed(2)}x`,
  );
  device.write(memory.usedMib);

  const kv = new KvCache(memory.blocks, BLOCK_SIZE, options.prefixCaching ?? true);
  let drafter: Drafter | null = null;
  if (speculator === "ngram") drafter = new NgramDrafter();
  else if (speculator === "draft") drafter = new ModelDrafter("draft", toy.make(DRAFT_PARAMS), toy.floor);
  else if (speculator === "eagle") drafter = new ModelDrafter("eagle", toy.make(EAGLE_PARAMS), toy.floor);
  const core = new EngineCore({
    target,
    floor: toy.floor,
    eosId: tokenizer.eosId,
    drafter,
    k,
    rule:
      behaviour.looseThreshold === null ? { kind: "exact" } : { kind: "loose", threshold: behaviour.looseThreshold },
    kv,
    cost: QWEN3_8B_B200,
    maxNumSeqs: options.maxNumSeqs ?? 20,
    maxBatchedTokens: 8192,
    simSpeed,
  });

  const failRng = new Rng(0x5eed);
  const failRate = options.failRate ?? 0.1;
  let served = 0;
  const crashAfter = options.crashAfter ?? 30;
  const server = createServer();
  // Clients close idle keep-alive connections first (undici after 4 s), so a reused socket is never reset here.
  server.keepAliveTimeout = 75_000;
  server.headersTimeout = 80_000;
  const crash = () => {
    // A dead process frees its device memory.
    device.write(0);
    if (options.onCrash) options.onCrash();
    else {
      server.close();
      server.closeAllConnections();
    }
  };
  const chatDeps = {
    servedName,
    maxModelLen,
    tokenizer,
    template: toy.template,
    marks: toy.marks,
    target,
    core,
    overrideSampling: behaviour.overrideSampling,
    cutShare: behaviour.cutShare,
    prompts: new PromptCache(),
    encoder: new SegmentEncoder(tokenizer, turnStartToken(tokenizer, toy.marks)),
    failure: (): "none" | "error" | "broken-stream" => {
      if (!behaviour.failing) return "none";
      const u = failRng.next();
      return u < failRate / 2 ? "error" : u < failRate ? "broken-stream" : "none";
    },
    onServed: () => {
      served++;
      if (behaviour.crash && served >= crashAfter) {
        log(
          `ERROR ${ts()} [core.py] EngineCore encountered a fatal error (the crash attack, after ${served} requests)`,
        );
        crash();
      }
    },
  };

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((err: unknown) => {
      const apiErr =
        err instanceof ApiError ? err : new ApiError(500, err instanceof Error ? err.message : String(err));
      if (!res.headersSent) {
        res.writeHead(apiErr.status, { "content-type": "application/json" });
        res.end(JSON.stringify(apiErr.body()));
      } else res.destroy();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/health") {
      res.writeHead(behaviour.neverHealthy ? 503 : 200);
      res.end();
      return;
    }
    if (req.method === "GET" && path === "/v1/models") {
      sendJson(res, 200, {
        object: "list",
        data: [
          {
            id: servedName,
            object: "model",
            created: Math.floor(Date.now() / 1000),
            owned_by: "vllm",
            root: servedName,
            parent: null,
            max_model_len: maxModelLen,
          },
        ],
      });
      return;
    }
    if (req.method === "GET" && path === "/version") {
      sendJson(res, 200, { version: "0.25.1" });
      return;
    }
    if (req.method === "GET" && path === "/metrics") {
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
      res.end(
        renderMetrics({
          modelName: servedName,
          running: core.numRunning,
          waiting: core.numWaiting,
          kvUsage: kv.usage,
          prefixQueries: kv.queries,
          prefixHits: kv.hits,
          counters: core.counters,
          speculative: drafter !== null,
        }),
      );
      return;
    }
    if (req.method === "POST" && path === "/v1/chat/completions") {
      const raw = await readBody(req);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch (e) {
        throw new ApiError(400, `Invalid JSON body: ${e instanceof Error ? e.message : String(e)}`);
      }
      await handleChat(chatDeps, body, res);
      return;
    }
    sendJson(res, 404, { detail: "Not Found" });
  }

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  log(`INFO ${ts()} [launcher.py] Starting vLLM API server 0 on http://${host}:${port}`);
  log("INFO:     Application startup complete.");

  let closed = false;
  return {
    url: `http://${host}:${port}`,
    port,
    servedName,
    mode,
    strengths,
    speculator,
    k,
    memory,
    core,
    kv,
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
      device.write(0);
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
