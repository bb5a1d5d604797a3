import { Writable } from "node:stream";
import {
  ApiException,
  CoreV1Api,
  type KubeConfig,
  Log,
  NetworkingV1Api,
  type V1Pod,
  Watch,
} from "@kubernetes/client-node";
import { parsePodLine } from "../agent/events";
import type { PodBackend, PodEvent, PodExit, PodHandle, PodInfo, PodLaunch } from "../types";
import type { KubernetesBackendConfig } from "./config";
import { EventQueue } from "./event-queue";
import { LineSplitter, LogCursor, parseTimestampedLine } from "./log-lines";
import { AGENT_CONTAINER, buildEvaluationNetworkPolicy, buildEvaluationPod, EVALUATION_POD_SELECTOR } from "./pod-spec";
import { agentLogAvailable, podExitFor, podInfoFor, unschedulableMessage } from "./pod-status";

export interface KubernetesPodBackendOptions {
  kubeConfig: KubeConfig;
  config: KubernetesBackendConfig;
  /** Pause before re-opening a watch or a log stream that ended early. */
  retryDelayMs?: number;
  /** How long the log may keep streaming after the pod has ended before events are closed. */
  logDrainMs?: number;
  onWarning?: (message: string) => void;
}

function statusCode(err: unknown): number | undefined {
  if (err instanceof ApiException) return err.code;
  const code =
    (err as { code?: unknown; statusCode?: unknown } | null)?.statusCode ?? (err as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : undefined;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Evaluation pods on a Kubernetes cluster, one per evaluation attempt. */
export class KubernetesPodBackend implements PodBackend {
  readonly name = "kubernetes" as const;
  private readonly core: CoreV1Api;
  private readonly networking: NetworkingV1Api;
  private readonly watch: Watch;
  private readonly log: Log;
  private readonly config: KubernetesBackendConfig;
  private readonly retryDelayMs: number;
  private readonly logDrainMs: number;
  private readonly warn: (message: string) => void;
  private policyReady: Promise<void> | null = null;
  private readonly runs = new Map<string, PodRun>();

  constructor(options: KubernetesPodBackendOptions) {
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.networking = options.kubeConfig.makeApiClient(NetworkingV1Api);
    this.watch = new Watch(options.kubeConfig);
    this.log = new Log(options.kubeConfig);
    this.config = options.config;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.logDrainMs = options.logDrainMs ?? 15_000;
    this.warn = options.onWarning ?? (() => {});
  }

  /** The default-deny policy must exist before any evaluation pod does: fail closed. */
  private ensureNetworkPolicy(): Promise<void> {
    if (!this.policyReady) {
      const policy = buildEvaluationNetworkPolicy(this.config);
      const name = this.config.networkPolicyName;
      const namespace = this.config.namespace;
      this.policyReady = (async () => {
        try {
          await this.networking.readNamespacedNetworkPolicy({ name, namespace });
          return;
        } catch (err) {
          if (statusCode(err) !== 404) throw err;
        }
        try {
          await this.networking.createNamespacedNetworkPolicy({ namespace, body: policy });
        } catch (err) {
          if (statusCode(err) !== 409) throw err;
        }
      })().catch((err: unknown) => {
        this.policyReady = null;
        throw new Error(`cannot ensure NetworkPolicy ${namespace}/${name}: ${(err as Error).message}`);
      });
    }
    return this.policyReady;
  }

  async start(launch: PodLaunch): Promise<PodHandle> {
    const body = buildEvaluationPod(launch, this.config);
    await this.ensureNetworkPolicy();
    const name = body.metadata?.name as string;
    let created: V1Pod;
    try {
      created = await this.core.createNamespacedPod({ namespace: this.config.namespace, body });
    } catch (err) {
      if (statusCode(err) === 409) {
        throw new Error(
          `pod ${this.config.namespace}/${name} already exists for evaluation ${launch.evaluationId} attempt ${launch.attempt}; a new attempt needs a new pod`,
        );
      }
      throw new Error(`cannot create pod ${this.config.namespace}/${name}: ${(err as Error).message}`);
    }
    return this.follow(created, (launch.deadlineSeconds + this.config.lostAfterDeadlineSeconds) * 1000, 0);
  }

  /**
   * Follows a pod an earlier worker created, from its log's start, handing on the events numbered above `afterSeq`
   * (the agent numbers what it writes); its deadline is the one it was created with, counted from its start. Null
   * when the pod is gone (its log with it).
   */
  async attach(podId: string, afterSeq: number): Promise<PodHandle | null> {
    let pod: V1Pod;
    try {
      pod = await this.core.readNamespacedPod({ name: podId, namespace: this.config.namespace });
    } catch (err) {
      if (statusCode(err) === 404) return null;
      throw new Error(`cannot read pod ${this.config.namespace}/${podId}: ${(err as Error).message}`);
    }
    const started = Date.parse(pod.status?.startTime?.toString() ?? pod.metadata?.creationTimestamp?.toString() ?? "");
    const deadlineSeconds = pod.spec?.activeDeadlineSeconds ?? 0;
    const lostAt = (Number.isNaN(started) ? Date.now() : started) + deadlineSeconds * 1000;
    const lostAfterMs = Math.max(0, lostAt + this.config.lostAfterDeadlineSeconds * 1000 - Date.now());
    this.runs.get(podId)?.detach();
    return this.follow(pod, lostAfterMs, afterSeq);
  }

  private follow(pod: V1Pod, lostAfterMs: number, afterSeq: number): PodHandle {
    const name = pod.metadata?.name as string;
    const run = new PodRun({
      name,
      namespace: this.config.namespace,
      backend: this,
      core: this.core,
      watch: this.watch,
      log: this.log,
      retryDelayMs: this.retryDelayMs,
      logDrainMs: this.logDrainMs,
      unschedulableGraceMs: this.config.unschedulableGraceSeconds * 1000,
      lostAfterMs,
      afterSeq,
      warn: this.warn,
    });
    this.runs.set(name, run);
    const forget = () => {
      if (this.runs.get(name) === run) this.runs.delete(name);
    };
    void run.exited.finally(forget);
    run.begin(pod);
    return {
      podId: name,
      events: run.events,
      exited: run.exited,
      detach: () => {
        run.detach();
        forget();
      },
    };
  }

  async stop(podId: string): Promise<void> {
    this.runs.get(podId)?.markStopped();
    try {
      await this.core.deleteNamespacedPod({
        name: podId,
        namespace: this.config.namespace,
        gracePeriodSeconds: this.config.deleteGracePeriodSeconds,
        propagationPolicy: "Background",
      });
    } catch (err) {
      if (statusCode(err) !== 404)
        throw new Error(`cannot delete pod ${this.config.namespace}/${podId}: ${(err as Error).message}`);
    }
  }

  /**
   * Stops following every pod (worker shutdown) without deleting any: their events end, their
   * `exited` stays unsettled, and the pods are found again by `list()` as orphans or resumed.
   */
  close(): void {
    for (const run of this.runs.values()) run.detach();
    this.runs.clear();
  }

  async list(): Promise<PodInfo[]> {
    const pods = await this.core.listNamespacedPod({
      namespace: this.config.namespace,
      labelSelector: EVALUATION_POD_SELECTOR,
    });
    return pods.items.map(podInfoFor).filter((p): p is PodInfo => p !== null);
  }
}

interface PodRunOptions {
  name: string;
  namespace: string;
  backend: KubernetesPodBackend;
  core: CoreV1Api;
  watch: Watch;
  log: Log;
  retryDelayMs: number;
  logDrainMs: number;
  unschedulableGraceMs: number;
  lostAfterMs: number;
  /** Events the agent numbered up to this were relayed by an earlier worker: skipped. */
  afterSeq: number;
  warn: (message: string) => void;
}

/** Follows one pod: its phase and conditions through a watch, its agent's events through its log. */
class PodRun {
  readonly events = new EventQueue<PodEvent>();
  readonly exited: Promise<PodExit>;
  private resolveExit!: (exit: PodExit) => void;
  private exit: PodExit | null = null;
  private latest: V1Pod | null = null;
  private stoppedByArena = false;
  private detached = false;
  private logStarted = false;
  private watchAbort: AbortController | null = null;
  private logAbort: AbortController | null = null;
  private endLogWait: (() => void) | null = null;
  private unschedulableTimer: NodeJS.Timeout | null = null;
  private lostTimer: NodeJS.Timeout | null = null;
  private drainTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: PodRunOptions) {
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
  }

  begin(created: V1Pod): void {
    this.lostTimer = setTimeout(() => {
      this.settle({
        kind: "failed",
        reason: "pod-lost",
        message: `the pod did not end within its deadline plus ${Math.round(this.o.lostAfterMs / 1000)} s`,
      });
      void this.o.backend.stop(this.o.name).catch((err: unknown) => this.o.warn((err as Error).message));
    }, this.o.lostAfterMs);
    this.observe(created);
    void this.watchLoop(created.metadata?.resourceVersion);
  }

  detach(): void {
    this.detached = true;
    for (const t of [this.unschedulableTimer, this.lostTimer, this.drainTimer]) if (t) clearTimeout(t);
    this.watchAbort?.abort();
    this.logAbort?.abort();
    this.endLogWait?.();
    this.events.end();
  }

  markStopped(): void {
    this.stoppedByArena = true;
  }

  private observe(pod: V1Pod): void {
    if (this.exit || this.detached) return;
    this.latest = pod;
    if (!this.logStarted && agentLogAvailable(pod)) {
      this.logStarted = true;
      void this.logLoop();
    }
    const exit = podExitFor(pod);
    if (exit) {
      this.settle(exit);
      return;
    }
    const unschedulable = unschedulableMessage(pod);
    if (!unschedulable) {
      if (this.unschedulableTimer) clearTimeout(this.unschedulableTimer);
      this.unschedulableTimer = null;
      return;
    }
    const fail = () => this.settle({ kind: "failed", reason: "unschedulable", message: unschedulable });
    if (this.o.unschedulableGraceMs === 0) fail();
    else if (!this.unschedulableTimer) this.unschedulableTimer = setTimeout(fail, this.o.unschedulableGraceMs);
  }

  private gone(): void {
    this.settle({
      kind: "failed",
      reason: "pod-lost",
      message: this.stoppedByArena ? "the pod was stopped by the arena" : "the pod was deleted before it ended",
    });
  }

  private settle(exit: PodExit): void {
    if (this.exit) return;
    this.exit = exit;
    for (const t of [this.unschedulableTimer, this.lostTimer]) if (t) clearTimeout(t);
    this.watchAbort?.abort();
    if (exit.kind === "failed" && (exit.reason === "image-pull" || exit.reason === "unschedulable")) {
      // The pod never ran and never will on its own; nothing in it is worth keeping.
      void this.o.backend.stop(this.o.name).catch((err: unknown) => this.o.warn((err as Error).message));
    }
    this.resolveExit(exit);
    if (!this.logStarted) {
      this.events.end();
    } else if (!this.events.isEnded) {
      this.drainTimer = setTimeout(() => {
        this.logAbort?.abort();
        this.endLogWait?.();
        this.events.end();
      }, this.o.logDrainMs);
    }
  }

  private async watchLoop(initialVersion: string | undefined): Promise<void> {
    let resourceVersion = initialVersion;
    let failures = 0;
    const path = `/api/v1/namespaces/${this.o.namespace}/pods`;
    while (!this.exit && !this.detached) {
      await new Promise<void>((resolve) => {
        this.o.watch
          .watch(
            path,
            { fieldSelector: `metadata.name=${this.o.name}`, resourceVersion, allowWatchBookmarks: true },
            (type: string, object: V1Pod & { code?: number }) => {
              failures = 0;
              if (type === "ERROR") {
                if (object.code === 410) resourceVersion = undefined;
                return;
              }
              const rv = object.metadata?.resourceVersion;
              if (rv) resourceVersion = rv;
              if (type === "BOOKMARK") return;
              if (object.metadata?.name !== this.o.name) return;
              this.observe(object);
              if (type === "DELETED") this.gone();
            },
            (err: unknown) => {
              if (err && !this.exit) this.o.warn(`watch of pod ${this.o.name} ended: ${(err as Error).message}`);
              resolve();
            },
          )
          .then((controller) => {
            this.watchAbort = controller;
            if (this.exit || this.detached) controller.abort();
          }, resolve);
      });
      if (this.exit || this.detached) return;
      // The watch closed (server timeout, network): resync from a fresh read, then watch again.
      try {
        const pod = await this.o.core.readNamespacedPod({ name: this.o.name, namespace: this.o.namespace });
        failures = 0;
        resourceVersion = pod.metadata?.resourceVersion;
        this.observe(pod);
      } catch (err) {
        if (statusCode(err) === 404) {
          this.gone();
          return;
        }
        failures++;
        this.o.warn(`cannot read pod ${this.o.name}: ${(err as Error).message}`);
      }
      await sleep(Math.min(this.o.retryDelayMs * 2 ** Math.min(failures, 5), 30_000));
    }
  }

  private agentTerminated(): boolean {
    const agent = this.latest?.status?.containerStatuses?.find((s) => s.name === AGENT_CONTAINER);
    return Boolean(agent?.state?.terminated);
  }

  private async logLoop(): Promise<void> {
    const cursor = new LogCursor();
    const splitter = new LineSplitter();
    const handleLine = (line: string) => {
      const stamped = parseTimestampedLine(line);
      if (!stamped) return;
      if (!cursor.accept(stamped)) return;
      const parsed = parsePodLine(stamped.text);
      if (!parsed) return;
      if (parsed.seq === undefined) this.events.push(parsed.event);
      else if (parsed.seq > this.o.afterSeq) this.events.push({ ...parsed.event, seq: parsed.seq });
    };
    while (!this.events.isEnded) {
      const sinceTime = cursor.rewind();
      splitter.discardPartial();
      const done = new Promise<void>((resolve) => {
        this.endLogWait = resolve;
      });
      const sink = new Writable({
        write(chunk: Buffer, _enc, callback) {
          for (const line of splitter.push(chunk)) handleLine(line);
          callback();
        },
      });
      // A source that errors unpipes without ending the sink; either way the stream is over.
      for (const ev of ["finish", "unpipe", "close", "error"]) sink.on(ev, () => this.endLogWait?.());
      let opened = false;
      try {
        this.logAbort = await this.o.log.log(this.o.namespace, this.o.name, AGENT_CONTAINER, sink, {
          follow: true,
          timestamps: true,
          ...(sinceTime ? { sinceTime } : {}),
        });
        opened = true;
        if (this.events.isEnded) {
          this.logAbort.abort();
          return;
        }
      } catch (err) {
        if (!this.exit) this.o.warn(`cannot follow the log of pod ${this.o.name}: ${(err as Error).message}`);
      }
      if (opened) await done;
      this.endLogWait = null;
      if (this.events.isEnded) return;
      if (this.exit || this.agentTerminated()) {
        // The container has ended, so this stream held its whole remaining log.
        if (opened) for (const line of splitter.flush()) handleLine(line);
        if (opened || this.exit) break;
      }
      await sleep(this.o.retryDelayMs);
    }
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.events.end();
  }
}
