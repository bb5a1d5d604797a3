import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import * as k8s from "@kubernetes/client-node";
import { loadAllYaml } from "@kubernetes/client-node";
import * as models from "kubernetes-models";
import { afterAll, describe, expect, it } from "vitest";
import { env, resetEnvForTests } from "../../env";
import { poolPathFor, stockEngineDir } from "../../evaluations/runtime";
import { redisConfig } from "../../ops/redis-config";
import { kubernetesBackendConfigFromEnv } from "./config";
import {
  AGENT_CONTAINER,
  buildEvaluationNetworkPolicy,
  buildEvaluationPod,
  ENGINE_CONTAINER,
  POD_PATHS,
} from "./pod-spec";

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is checked against the API's schemas, then field by field.
type Doc = any;

const K8S_DIR = path.resolve(import.meta.dirname, "../../../k8s");
const files = readdirSync(K8S_DIR).filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"));
const docs: Array<{ file: string; doc: Doc }> = files.flatMap((file) =>
  loadAllYaml(readFileSync(path.join(K8S_DIR, file), "utf8"))
    .filter((doc: Doc) => doc != null)
    .map((doc: Doc) => ({ file, doc })),
);
const objects = docs.filter(({ doc }) => doc.kind !== "Kustomization").map(({ doc }) => doc);
const find = (kind: string, name: string): Doc => {
  const found = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found) throw new Error(`k8s/ has no ${kind} ${name}`);
  return found;
};
const EVALS = "speculator-arena-evals";
const WEB_NS = "speculator-arena";
const workerConfig = () => find("ConfigMap", "arena-worker-config").data as Record<string, string>;
const workerSecrets = () => find("Secret", "arena-worker-secrets").stringData as Record<string, string>;
const podSpecs = () =>
  objects
    .filter((o) => ["Deployment", "StatefulSet", "Job"].includes(o.kind))
    .map((o) => ({
      owner: `${o.kind}/${o.metadata.name}`,
      spec: o.spec.template.spec,
      labels: o.spec.template.metadata.labels,
    }));

/** kubernetes-models' class for an object's apiVersion and kind: its validate() is the API's OpenAPI schema. */
function modelFor(apiVersion: string, kind: string): (new (data: unknown) => { validate(): void }) | undefined {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const key = group === "" ? "v1" : group!.replace(/\.([a-z])/g, (_, c: string) => c.toUpperCase()).replace(/\./g, "");
  // biome-ignore lint/suspicious/noExplicitAny: the models are looked up by name
  const module = (models as any)[group === "" ? "v1" : key];
  return (group === "" ? module : module?.[version!])?.[kind];
}

/**
 * Fields the API does not know (a misspelt field is dropped by the API server without a word, and the schemas
 * above allow unknown fields), walked with the client library's own type maps of the API's objects.
 */
function unknownFields(value: unknown, type: string, at: string): string[] {
  if (value === null || value === undefined || typeof value !== "object") return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return (value as unknown[]).flatMap((v, i) => unknownFields(v, array[1]!, `${at}[${i}]`));
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return Object.entries(value).flatMap(([k, v]) => unknownFields(v, map[1]!, `${at}.${k}`));
  // biome-ignore lint/suspicious/noExplicitAny: the client's model classes, by name
  const model = (k8s as any)[type] as { getAttributeTypeMap?: () => Array<{ baseName: string; type: string }> };
  if (!model?.getAttributeTypeMap) return [];
  const known = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([k, v]) =>
    known.has(k) ? unknownFields(v, known.get(k)!, `${at}.${k}`) : [`${at}.${k}`],
  );
}

/** Validates an object against the Kubernetes API's schema and its known fields; the problems found, none if valid. */
function apiProblems(o: Doc): string[] {
  const Model = modelFor(o.apiVersion, o.kind);
  if (!Model) return [`${o.apiVersion} ${o.kind} is not a Kubernetes API kind`];
  const problems: string[] = [];
  try {
    new Model(structuredClone(o)).validate();
  } catch (error) {
    problems.push((error as Error).message);
  }
  const version = o.apiVersion.split("/").pop() as string;
  problems.push(...unknownFields(o, `${version[0]!.toUpperCase()}${version.slice(1)}${o.kind}`, o.kind));
  return problems;
}

afterAll(() => {
  for (const key of Object.keys(process.env)) if (key.startsWith("KUBE_")) delete process.env[key];
  resetEnvForTests();
});

describe("k8s/ manifests", () => {
  it("are objects of the Kubernetes API: every one valid against its schema, no field the API does not know", () => {
    expect(objects.length).toBeGreaterThan(20);
    for (const o of objects) expect(apiProblems(o), `${o.kind}/${o.metadata?.name}`).toEqual([]);
    // the check sees what it should: a misspelt field, a wrong enum, a missing required field
    const web = structuredClone(find("Deployment", "arena-web"));
    web.spec.template.spec.containers[0].readinessProbes = web.spec.template.spec.containers[0].readinessProbe;
    expect(apiProblems(web)).toEqual(["Deployment.spec.template.spec.containers[0].readinessProbes"]);
    const policy = structuredClone(find("NetworkPolicy", "speculator-arena-evaluation-deny-all"));
    policy.spec.policyTypes = ["Egres"];
    expect(apiProblems(policy).join()).toMatch(/policyTypes.*allowed values/);
    const service = structuredClone(find("Service", "arena-web"));
    delete service.spec.ports[0].port;
    expect(apiProblems(service).join()).toMatch(/ports\/0 must have required property .?port/);
  });

  it("parse, and every object names itself and a namespace the manifests create", () => {
    const namespaces = new Set(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name));
    expect([...namespaces].sort()).toEqual([WEB_NS, EVALS]);
    for (const o of objects) {
      expect(o.metadata?.name, `${o.kind}`).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      if (o.kind !== "Namespace")
        expect(namespaces.has(o.metadata.namespace), `${o.kind}/${o.metadata.name}`).toBe(true);
      expect(o.kind).not.toMatch(/^Cluster/);
    }
  });

  it("lists every file in the kustomization: kubectl apply -k k8s/ is the one command", () => {
    const kustomization = docs.find(({ doc }) => doc.kind === "Kustomization")?.doc;
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== "kustomization.yaml").sort());
  });

  it("enforce the restricted Pod Security Standard on both namespaces, and every pod keeps to it", () => {
    for (const ns of objects.filter((o) => o.kind === "Namespace")) {
      expect(ns.metadata.labels["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    }
    for (const { owner, spec } of podSpecs()) {
      expect(spec.securityContext, owner).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(spec.securityContext.runAsUser, owner).toBeGreaterThan(0);
      expect(spec.hostNetwork ?? false).toBe(false);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        expect(c.securityContext, `${owner} ${c.name}`).toMatchObject({
          runAsNonRoot: true,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        expect(c.image, `${owner} ${c.name}`).not.toMatch(/:latest$|^[^:@]+$/);
        expect(c.resources?.limits?.memory, `${owner} ${c.name}`).toMatch(/^\d+(Mi|Gi)$/);
      }
    }
  });

  it("select their own pods: controllers, Services and the PodDisruptionBudget", () => {
    for (const o of objects.filter((x) => ["Deployment", "StatefulSet"].includes(x.kind))) {
      for (const [k, v] of Object.entries(o.spec.selector.matchLabels))
        expect(o.spec.template.metadata.labels[k]).toBe(v);
    }
    const labelsIn = (ns: string) =>
      objects
        .filter((o) => ["Deployment", "StatefulSet"].includes(o.kind) && o.metadata.namespace === ns)
        .map((o) => o.spec.template.metadata.labels);
    for (const service of objects.filter((o) => o.kind === "Service")) {
      const matches = labelsIn(service.metadata.namespace).filter((l) =>
        Object.entries(service.spec.selector).every(([k, v]) => l[k] === v),
      );
      expect(matches.length, `Service/${service.metadata.name} selects a workload`).toBe(1);
    }
    const pdb = find("PodDisruptionBudget", "arena-web");
    expect(pdb.spec.selector.matchLabels).toEqual(find("Deployment", "arena-web").spec.selector.matchLabels);
    expect(pdb.spec.minAvailable).toBeLessThan(find("Deployment", "arena-web").spec.replicas);
  });

  it("give only the worker a service-account token, bound to the least Role the backend needs", () => {
    for (const { owner, spec } of podSpecs()) {
      if (owner !== "Deployment/arena-worker") expect(spec.automountServiceAccountToken, owner).toBe(false);
    }
    expect(find("ServiceAccount", "arena-web").automountServiceAccountToken).toBe(false);
    const worker = find("Deployment", "arena-worker");
    expect(worker.metadata.namespace).toBe(EVALS);
    expect(worker.spec.template.spec.serviceAccountName).toBe("arena-worker");
    const role = find("Role", "arena-worker");
    expect(role.metadata.namespace).toBe(EVALS);
    expect(role.rules).toEqual([
      { apiGroups: [""], resources: ["pods"], verbs: ["create", "get", "list", "watch", "delete"] },
      { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
      { apiGroups: ["networking.k8s.io"], resources: ["networkpolicies"], verbs: ["create", "get"] },
    ]);
    const binding = find("RoleBinding", "arena-worker");
    expect(binding.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "arena-worker" });
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "arena-worker", namespace: EVALS }]);
  });

  it("ship the same default-deny NetworkPolicy the backend ensures, and open the datastores to the arena's programs only", () => {
    const manifest = find("NetworkPolicy", "speculator-arena-evaluation-deny-all");
    const built = buildEvaluationNetworkPolicy({
      namespace: EVALS,
      networkPolicyName: "speculator-arena-evaluation-deny-all",
    });
    expect(manifest.metadata.namespace).toBe(EVALS);
    expect(manifest.spec).toEqual(built.spec);
    for (const [store, port] of [
      ["postgres", 5432],
      ["redis", 6379],
    ] as const) {
      const policy = find("NetworkPolicy", `arena-${store}`);
      expect(policy.spec.podSelector.matchLabels).toEqual(
        find("StatefulSet", `arena-${store}`).spec.selector.matchLabels,
      );
      expect(policy.spec.ingress.flatMap((r: Doc) => r.ports)).toEqual([{ protocol: "TCP", port }]);
      const sources = policy.spec.ingress.flatMap((r: Doc) => r.from);
      const worker = sources.find((s: Doc) => s.namespaceSelector);
      expect(worker).toEqual({
        namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": EVALS } },
        podSelector: { matchLabels: { "app.kubernetes.io/component": "worker" } },
      });
    }
  });

  it("probe the web app's readiness on /api/health, roll it and the worker without a gap, and grace the worker's detach", () => {
    const web = find("Deployment", "arena-web");
    const container = web.spec.template.spec.containers[0];
    expect(container.readinessProbe.httpGet).toEqual({ path: "/api/health", port: "http" });
    // liveness never depends on a datastore: an outage must not restart the web app
    expect(container.livenessProbe.httpGet).toBeUndefined();
    expect(container.command).toEqual(["node", "server.js"]);
    const worker = find("Deployment", "arena-worker");
    expect(worker.spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    // the worker detaches from its pods and exits within 20 s of SIGTERM (workers/main.ts)
    expect(worker.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(20);
    expect(worker.spec.template.spec.containers[0].command).toEqual(["node", "bundles/worker/worker.mjs"]);
    const job = find("Job", "arena-migrate");
    expect(job.spec.template.spec.containers[0].command.join(" ")).toMatch(
      /node bundles\/ops\/migrate\.mjs && node bundles\/ops\/seed\.mjs/,
    );
  });

  it("put the Ingress in front with server-sent events unbuffered and long-lived, and room for a submission", () => {
    const ingress = find("Ingress", "arena-web");
    const a = ingress.metadata.annotations;
    expect(a["nginx.ingress.kubernetes.io/proxy-buffering"]).toBe("off");
    expect(Number(a["nginx.ingress.kubernetes.io/proxy-read-timeout"])).toBeGreaterThanOrEqual(3600);
    const body = /^(\d+)m$/.exec(a["nginx.ingress.kubernetes.io/proxy-body-size"])?.[1];
    expect(Number(body) * 2 ** 20).toBeGreaterThanOrEqual(3 * 2 ** 20);
    const backend = ingress.spec.rules[0].http.paths[0].backend.service;
    expect(backend).toEqual({ name: "arena-web", port: { name: "http" } });
    expect(find("ConfigMap", "arena-web-config").data.TRUSTED_PROXY_HOPS).toBe("1");
  });

  it("run Redis as npm run arena runs its own: a password, AOF, no eviction, the dangerous commands removed", () => {
    const conf: string = find("ConfigMap", "arena-redis-config").data["redis.conf"];
    const expected = redisConfig({ port: 6379, dir: "/data", password: "__REDIS_PASSWORD__", persistence: "aof" })
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith("bind "));
    // on a cluster it listens on the pod's address: the password and the NetworkPolicy guard it
    expect(conf.split("\n").filter((l) => l !== "" && !l.startsWith("bind "))).toEqual(expected);
    const redis = find("StatefulSet", "arena-redis").spec.template.spec.containers[0];
    expect(redis.env).toContainEqual({
      name: "REDIS_PASSWORD",
      valueFrom: { secretKeyRef: { name: "arena-redis", key: "REDIS_PASSWORD" } },
    });
    // the password never reaches a command line: it is written into the config in the container's memory
    expect(redis.command.join(" ")).toMatch(/sed "s\/__REDIS_PASSWORD__\/\$REDIS_PASSWORD\/"/);
    expect(redis.command.join(" ")).toMatch(/exec redis-server \/run\/redis\/redis\.conf/);
    const postgres = find("StatefulSet", "arena-postgres").spec.template.spec.containers[0];
    expect(postgres.env).toContainEqual({
      name: "POSTGRES_PASSWORD",
      valueFrom: { secretKeyRef: { name: "arena-postgres", key: "POSTGRES_PASSWORD" } },
    });
    // both programs reach the in-cluster datastores through their Services
    for (const secret of ["arena-web-secrets", "arena-worker-secrets"]) {
      const data = find("Secret", secret).stringData;
      expect(new URL(data.DATABASE_URL).host).toBe("arena-postgres.speculator-arena.svc:5432");
      expect(new URL(data.REDIS_URL).host).toBe("arena-redis.speculator-arena.svc:6379");
    }
  });

  it("hold the environment each program needs, secrets in Secrets, and every setting parses", () => {
    for (const key of ["DATABASE_URL", "REDIS_URL", "NEXTAUTH_SECRET", "METRICS_TOKEN"])
      expect(find("Secret", "arena-web-secrets").stringData[key], key).toMatch(/\S/);
    for (const key of ["DATABASE_URL", "REDIS_URL"]) expect(workerSecrets()[key], key).toMatch(/\S/);
    for (const cm of objects.filter((o) => o.kind === "ConfigMap" && o.metadata.name !== "arena-redis-config")) {
      for (const key of Object.keys(cm.data)) expect(key).not.toMatch(/SECRET|PASSWORD|DATABASE_URL|REDIS_URL|TOKEN/);
    }
    const web = find("Deployment", "arena-web").spec.template.spec.containers[0];
    expect(web.envFrom).toEqual([
      { configMapRef: { name: "arena-web-config" } },
      { secretRef: { name: "arena-web-secrets" } },
    ]);
    for (const [config, secrets] of [
      ["arena-web-config", "arena-web-secrets"],
      ["arena-worker-config", "arena-worker-secrets"],
    ] as const) {
      Object.assign(process.env, find("ConfigMap", config).data, find("Secret", secrets).stringData);
      resetEnvForTests();
      expect(() => env(), config).not.toThrow();
      expect(env().ENGINE_RUNTIME, config).toBe("vllm");
    }
  });

  it("configure the worker for the kubernetes backend: every path a pod mounts on the storage volume it seals onto", async () => {
    const cm = workerConfig();
    expect(cm.POD_BACKEND).toBe("kubernetes");
    const worker = find("Deployment", "arena-worker").spec.template.spec;
    const claim = worker.volumes.find((v: Doc) => v.persistentVolumeClaim?.claimName === cm.KUBE_STORAGE_CLAIM);
    expect(claim, "the worker mounts the claim evaluation pods use").toBeDefined();
    const mount = worker.containers[0].volumeMounts.find((m: Doc) => m.name === claim.name);
    expect(mount.mountPath).toBe(cm.KUBE_STORAGE_WORKER_ROOT);
    expect(mount.mountPath).toBe(cm.ARENA_DATA_DIR);
    expect(find("PersistentVolumeClaim", cm.KUBE_STORAGE_CLAIM!).metadata.namespace).toBe(EVALS);
    // the stock engine is put where STOCK_ENGINE_DIR says by the worker's init container, from its own image
    const install = worker.initContainers.find((c: Doc) => c.name === "install-stock-engine");
    expect(install.image).toBe(worker.containers[0].image);
    expect(install.volumeMounts).toContainEqual({ name: claim.name, mountPath: cm.KUBE_STORAGE_WORKER_ROOT });
    expect(install.command.join(" ")).toContain('mkdir -p "$STOCK_ENGINE_DIR"');
    // the arena's image is one, everywhere, and the pods' agent image is it
    const arenaImages = new Set(
      podSpecs()
        .filter(({ owner }) => !owner.includes("postgres") && !owner.includes("redis"))
        .flatMap(({ spec }) => [...(spec.initContainers ?? []), ...spec.containers].map((c: Doc) => c.image)),
    );
    expect([...arenaImages]).toEqual([cm.KUBE_AGENT_IMAGE]);

    // The evaluation pod, from config.yaml's values alone: the worker's own settings give every path.
    Object.assign(process.env, cm, workerSecrets());
    resetEnvForTests();
    const config = kubernetesBackendConfigFromEnv(env().kubernetes, { engineRuntime: env().ENGINE_RUNTIME });
    const id = "cmf3x9z0k0001";
    const sealed = path.join(env().ARENA_DATA_DIR, "evaluations", id, "a1");
    const poolPath = await poolPathFor("test");
    expect(poolPath).toBe(cm.TEST_POOL_PATH);
    const pod = buildEvaluationPod(
      {
        evaluationId: id,
        attempt: 1,
        taskId: "qwen3-8b",
        profile: "full",
        seed: 1,
        engineDir: path.join(sealed, "engine"),
        speculatorDir: path.join(sealed, "speculator"),
        targetDir: path.join(env().TARGETS_DIR!, "qwen3-8b"),
        stockEngineDir: stockEngineDir(),
        deadlineSeconds: 7200,
        poolPath,
      },
      config,
    );
    expect(apiProblems(pod)).toEqual([]);
    expect(apiProblems(buildEvaluationNetworkPolicy(config))).toEqual([]);
    expect(pod.metadata?.namespace).toBe(find("Role", "arena-worker").metadata.namespace);
    const engine = pod.spec!.containers.find((c) => c.name === ENGINE_CONTAINER)!;
    const agent = pod.spec!.containers.find((c) => c.name === AGENT_CONTAINER)!;
    const subPaths = Object.fromEntries(
      engine.volumeMounts!.filter((m) => m.subPath).map((m) => [m.mountPath, m.subPath]),
    );
    expect(subPaths).toEqual({
      [POD_PATHS.engine]: `evaluations/${id}/a1/engine`,
      [POD_PATHS.speculator]: `evaluations/${id}/a1/speculator`,
      [POD_PATHS.target]: "targets/qwen3-8b",
      [POD_PATHS.stockEngine]: "stock-engine",
    });
    expect(agent.volumeMounts).toContainEqual({
      name: "arena-storage",
      mountPath: POD_PATHS.pool,
      subPath: "pools/test.jsonl",
      readOnly: true,
    });
    // the runtime goes into the pod, and the GPU resource and runtime class are the ConfigMap's
    expect(agent.env).toContainEqual({ name: "ARENA_ENGINE_RUNTIME", value: "vllm" });
    expect(Object.keys(engine.resources!.limits!)).toContain(cm.KUBE_GPU_RESOURCE);
    expect(pod.spec!.runtimeClassName).toBeUndefined();
    const gvisor = kubernetesBackendConfigFromEnv({ ...env().kubernetes, KUBE_RUNTIME_CLASS: "gvisor" });
    expect(buildEvaluationPod(launchOf(pod), gvisor).spec?.runtimeClassName).toBe("gvisor");
  });
});

/** The launch a built pod came from, read back from its own spec (for rebuilding it with another config). */
function launchOf(pod: k8s.V1Pod) {
  const agent = pod.spec!.containers.find((c) => c.name === AGENT_CONTAINER)!;
  const envOf = Object.fromEntries(agent.env!.map((e) => [e.name, e.value!]));
  const mounts = [...pod.spec!.containers.flatMap((c) => c.volumeMounts ?? [])];
  const root = workerConfig().KUBE_STORAGE_WORKER_ROOT!;
  const at = (p: string) => path.join(root, mounts.find((m) => m.mountPath === p)!.subPath!);
  return {
    evaluationId: envOf.ARENA_EVALUATION_ID!,
    attempt: Number(envOf.ARENA_ATTEMPT),
    taskId: envOf.ARENA_TASK!,
    profile: envOf.ARENA_PROFILE!,
    seed: Number(envOf.ARENA_SEED),
    engineDir: at(POD_PATHS.engine),
    speculatorDir: at(POD_PATHS.speculator),
    targetDir: at(POD_PATHS.target),
    stockEngineDir: at(POD_PATHS.stockEngine),
    deadlineSeconds: Number(envOf.ARENA_DEADLINE_SECONDS),
  };
}
