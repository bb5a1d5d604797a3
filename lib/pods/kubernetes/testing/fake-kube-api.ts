import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig, type V1NetworkPolicy, type V1Pod, type V1PodStatus } from "@kubernetes/client-node";

/**
 * A Kubernetes API server for tests, over a real socket: enough of pods (create, get, list
 * with labelSelector, watch, delete), the pod log (follow, timestamps, sinceTime) and
 * NetworkPolicies for @kubernetes/client-node to talk to it as to a cluster. Tests drive
 * pod states and log output through its methods.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
}

interface LogLine {
  at: bigint;
  text: string;
}

interface PodLog {
  lines: LogLine[];
  /** The line being written, not yet ended by a newline. */
  partial: LogLine | null;
  followers: Set<{ res: ServerResponse; atLineStart: boolean; stamps: boolean }>;
  ended: boolean;
}

interface Watcher {
  res: ServerResponse;
  namespace: string;
  name?: string;
  labels: Array<[string, string | null]>;
}

interface HistoryEntry {
  rv: number;
  type: "ADDED" | "MODIFIED" | "DELETED";
  pod: V1Pod;
}

function parseLabelSelector(selector: string | undefined): Array<[string, string | null]> {
  if (!selector) return [];
  return selector.split(",").map((term) => {
    const [k, v] = term.split("=");
    return [k?.trim() ?? "", v === undefined ? null : v.trim()];
  });
}

function matchesLabels(pod: V1Pod, selector: Array<[string, string | null]>): boolean {
  const labels = pod.metadata?.labels ?? {};
  return selector.every(([k, v]) => (v === null ? k in labels : labels[k] === v));
}

function formatNanos(at: bigint): string {
  const seconds = at / 1_000_000_000n;
  const nanos = (at % 1_000_000_000n).toString().padStart(9, "0");
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${nanos}Z`;
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code }));
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

export class FakeKubeApi {
  readonly requests: RecordedRequest[] = [];
  /** Pod names deleted through the API, in order. */
  readonly deletions: string[] = [];
  private readonly server: Server;
  private readonly pods = new Map<string, V1Pod>();
  private readonly logs = new Map<string, PodLog>();
  private readonly policies = new Map<string, V1NetworkPolicy>();
  private readonly history: HistoryEntry[] = [];
  private readonly watchers = new Set<Watcher>();
  private rv = 100;
  private lastNanos = 0n;
  url = "";

  private constructor() {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) status(res, 500, "InternalError", String(err));
        else res.destroy();
      });
    });
  }

  static async start(): Promise<FakeKubeApi> {
    const api = new FakeKubeApi();
    await new Promise<void>((resolve) => api.server.listen(0, "127.0.0.1", resolve));
    api.url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    return api;
  }

  /** A client config pointing at this server, as a kubeconfig would. */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "fake", server: this.url, skipTLSVerify: true }],
      users: [{ name: "tester", token: "test-token" }],
      contexts: [{ name: "fake", cluster: "fake", user: "tester" }],
      currentContext: "fake",
    });
    return kc;
  }

  async close(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    for (const log of this.logs.values()) for (const f of log.followers) f.res.end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  pod(namespace: string, name: string): V1Pod | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  podNames(): string[] {
    return [...this.pods.keys()];
  }

  networkPolicy(namespace: string, name: string): V1NetworkPolicy | undefined {
    return this.policies.get(`${namespace}/${name}`);
  }

  /** Puts a pod in place as if another worker had made it. */
  seedPod(pod: V1Pod): void {
    const ns = pod.metadata?.namespace ?? "default";
    this.storePod(ns, structuredClone(pod), "ADDED");
  }

  /** Replaces a pod's status, as the scheduler or kubelet would, and tells watchers. */
  setPodStatus(namespace: string, name: string, podStatus: V1PodStatus): void {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw new Error(`no pod ${namespace}/${name}`);
    pod.status = structuredClone(podStatus);
    this.storePod(namespace, pod, "MODIFIED");
  }

  /** Appends raw output to a container's log, exactly as given: a chunk may end mid-line. */
  writeLog(namespace: string, name: string, text: string): void {
    const log = this.logFor(`${namespace}/${name}`);
    let rest = text;
    while (rest.length > 0) {
      if (!log.partial) log.partial = { at: this.nextNanos(), text: "" };
      const nl = rest.indexOf("\n");
      const piece = nl === -1 ? rest : rest.slice(0, nl + 1);
      rest = nl === -1 ? "" : rest.slice(nl + 1);
      for (const f of log.followers) {
        f.res.write(f.atLineStart && f.stamps ? `${formatNanos(log.partial.at)} ${piece}` : piece);
        f.atLineStart = piece.endsWith("\n");
      }
      log.partial.text += piece;
      if (piece.endsWith("\n")) {
        log.lines.push(log.partial);
        log.partial = null;
      }
    }
  }

  /** The container's output is over: followed streams end. */
  endLog(namespace: string, name: string): void {
    const log = this.logFor(`${namespace}/${name}`);
    log.ended = true;
    for (const f of log.followers) f.res.end();
    log.followers.clear();
  }

  /** Cuts every followed log stream without ending the log, as an API server restart would. */
  dropLogStreams(): void {
    for (const log of this.logs.values()) {
      for (const f of log.followers) f.res.end();
      log.followers.clear();
    }
  }

  /** Closes every watch, as the API server does when a watch times out. */
  dropWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }

  followerCount(namespace: string, name: string): number {
    return this.logs.get(`${namespace}/${name}`)?.followers.size ?? 0;
  }

  watcherCount(): number {
    return this.watchers.size;
  }

  private nextNanos(): bigint {
    const now = BigInt(Date.now()) * 1_000_000n;
    this.lastNanos = now > this.lastNanos ? now : this.lastNanos + 1n;
    return this.lastNanos;
  }

  private logFor(key: string): PodLog {
    let log = this.logs.get(key);
    if (!log) {
      log = { lines: [], partial: null, followers: new Set(), ended: false };
      this.logs.set(key, log);
    }
    return log;
  }

  private storePod(namespace: string, pod: V1Pod, type: HistoryEntry["type"]): void {
    this.rv++;
    pod.metadata = { ...pod.metadata, namespace, resourceVersion: String(this.rv) };
    const key = `${namespace}/${pod.metadata.name}`;
    if (type === "DELETED") this.pods.delete(key);
    else this.pods.set(key, pod);
    const entry: HistoryEntry = { rv: this.rv, type, pod: structuredClone(pod) };
    this.history.push(entry);
    for (const w of this.watchers) this.send(w, entry);
  }

  private send(w: Watcher, entry: HistoryEntry): void {
    if (entry.pod.metadata?.namespace !== w.namespace) return;
    if (w.name && entry.pod.metadata?.name !== w.name) return;
    if (!matchesLabels(entry.pod, w.labels)) return;
    w.res.write(`${JSON.stringify({ type: entry.type, object: entry.pod })}\n`);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const query = Object.fromEntries(url.searchParams.entries());
    this.requests.push({ method: req.method ?? "GET", path: url.pathname, query });
    if (req.headers.authorization !== "Bearer test-token") {
      status(res, 401, "Unauthorized", "no bearer token");
      return;
    }
    const parts = url.pathname.split("/").filter(Boolean);
    // /api/v1/namespaces/{ns}/pods[/{name}[/log]]
    if (parts[0] === "api" && parts[1] === "v1" && parts[2] === "namespaces" && parts[4] === "pods") {
      const ns = parts[3] ?? "";
      const name = parts[5];
      if (!name && req.method === "GET" && query.watch === "true") return this.watchPods(res, ns, query);
      if (!name && req.method === "GET") return this.listPods(res, ns, query);
      if (!name && req.method === "POST") return this.createPod(res, ns, await readBody(req));
      if (name && parts[6] === "log" && req.method === "GET") return this.podLog(res, ns, name, query);
      if (name && !parts[6] && req.method === "GET") {
        const pod = this.pods.get(`${ns}/${name}`);
        return pod ? json(res, 200, pod) : status(res, 404, "NotFound", `pods "${name}" not found`);
      }
      if (name && !parts[6] && req.method === "DELETE") return this.deletePod(res, ns, name);
    }
    // /apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies[/{name}]
    if (
      parts[0] === "apis" &&
      parts[1] === "networking.k8s.io" &&
      parts[3] === "namespaces" &&
      parts[5] === "networkpolicies"
    ) {
      const ns = parts[4] ?? "";
      const name = parts[6];
      if (!name && req.method === "POST") {
        const body = (await readBody(req)) as V1NetworkPolicy;
        const key = `${ns}/${body.metadata?.name}`;
        if (this.policies.has(key))
          return status(res, 409, "AlreadyExists", `networkpolicies "${body.metadata?.name}" already exists`);
        this.rv++;
        body.metadata = { ...body.metadata, namespace: ns, resourceVersion: String(this.rv), uid: randomUUID() };
        this.policies.set(key, body);
        return json(res, 201, body);
      }
      if (name && req.method === "GET") {
        const policy = this.policies.get(`${ns}/${name}`);
        return policy ? json(res, 200, policy) : status(res, 404, "NotFound", `networkpolicies "${name}" not found`);
      }
    }
    status(res, 404, "NotFound", `the fake API serves no ${req.method} ${url.pathname}`);
  }

  private listPods(res: ServerResponse, ns: string, query: Record<string, string>): void {
    const selector = parseLabelSelector(query.labelSelector);
    const items = [...this.pods.values()].filter((p) => p.metadata?.namespace === ns && matchesLabels(p, selector));
    json(res, 200, { kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: String(this.rv) }, items });
  }

  private createPod(res: ServerResponse, ns: string, body: unknown): void {
    const pod = body as V1Pod;
    const name = pod?.metadata?.name;
    if (!name) {
      status(res, 422, "Invalid", "metadata.name is required");
      return;
    }
    if (pod.metadata?.namespace && pod.metadata.namespace !== ns) {
      status(res, 400, "BadRequest", "the namespace of the object does not match the namespace of the request");
      return;
    }
    if (this.pods.has(`${ns}/${name}`)) {
      status(res, 409, "AlreadyExists", `pods "${name}" already exists`);
      return;
    }
    pod.metadata = { ...pod.metadata, uid: randomUUID(), creationTimestamp: new Date() };
    pod.status = { phase: "Pending", qosClass: "Burstable" };
    this.storePod(ns, pod, "ADDED");
    json(res, 201, pod);
  }

  private deletePod(res: ServerResponse, ns: string, name: string): void {
    const pod = this.pods.get(`${ns}/${name}`);
    if (!pod) {
      status(res, 404, "NotFound", `pods "${name}" not found`);
      return;
    }
    this.deletions.push(name);
    pod.metadata = { ...pod.metadata, deletionTimestamp: new Date() };
    this.storePod(ns, pod, "DELETED");
    const log = this.logs.get(`${ns}/${name}`);
    if (log) {
      for (const f of log.followers) f.res.end();
      log.followers.clear();
    }
    json(res, 200, pod);
  }

  private watchPods(res: ServerResponse, ns: string, query: Record<string, string>): void {
    const field = query.fieldSelector?.match(/^metadata\.name=(.+)$/);
    const watcher: Watcher = { res, namespace: ns, name: field?.[1], labels: parseLabelSelector(query.labelSelector) };
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    res.flushHeaders();
    const since = query.resourceVersion ? Number(query.resourceVersion) : undefined;
    if (since === undefined) {
      for (const pod of this.pods.values()) this.send(watcher, { rv: this.rv, type: "ADDED", pod });
    } else {
      for (const entry of this.history) if (entry.rv > since) this.send(watcher, entry);
    }
    this.watchers.add(watcher);
    res.on("close", () => this.watchers.delete(watcher));
  }

  private podLog(res: ServerResponse, ns: string, name: string, query: Record<string, string>): void {
    const pod = this.pods.get(`${ns}/${name}`);
    if (!pod) {
      status(res, 404, "NotFound", `pods "${name}" not found`);
      return;
    }
    const container = query.container ?? "";
    const cs = pod.status?.containerStatuses?.find((s) => s.name === container);
    if (!cs?.state?.running && !cs?.state?.terminated) {
      status(res, 400, "BadRequest", `container "${container}" in pod "${name}" is waiting to start`);
      return;
    }
    const log = this.logFor(`${ns}/${name}`);
    const stamps = query.timestamps === "true";
    const since = query.sinceTime ? BigInt(Date.parse(query.sinceTime)) * 1_000_000n : undefined;
    res.writeHead(200, { "content-type": "text/plain", "transfer-encoding": "chunked" });
    res.flushHeaders();
    const render = (l: LogLine) => (stamps ? `${formatNanos(l.at)} ${l.text}` : l.text);
    const old = log.lines.filter((l) => since === undefined || l.at >= since).map(render);
    if (old.length > 0) res.write(old.join(""));
    let atLineStart = true;
    if (log.partial && (since === undefined || log.partial.at >= since)) {
      res.write(render(log.partial));
      atLineStart = false;
    }
    const terminated = Boolean(cs.state?.terminated);
    if (query.follow !== "true" || log.ended || terminated) {
      res.end();
      return;
    }
    const follower = { res, atLineStart, stamps };
    log.followers.add(follower);
    res.on("close", () => log.followers.delete(follower));
  }
}
