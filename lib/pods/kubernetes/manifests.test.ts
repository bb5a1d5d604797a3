import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { loadAllYaml } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { kubernetesBackendConfigFromEnv } from "./config";
import { buildEvaluationNetworkPolicy, buildEvaluationPod } from "./pod-spec";

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is checked field by field below.
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

describe("k8s/ manifests", () => {
  it("parse, and every object names itself and a namespace the manifests create", () => {
    expect(files.length).toBeGreaterThanOrEqual(6);
    const namespaces = new Set(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name));
    expect([...namespaces].sort()).toEqual(["speculator-arena", EVALS]);
    for (const o of objects) {
      expect(typeof o.apiVersion, `${o.kind}`).toBe("string");
      expect(o.metadata?.name, `${o.kind}`).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      if (o.kind !== "Namespace")
        expect(namespaces.has(o.metadata.namespace), `${o.kind}/${o.metadata.name}`).toBe(true);
      expect(o.kind).not.toMatch(/^Cluster/);
    }
  });

  it("lists every file in the kustomization", () => {
    const kustomization = docs.find(({ doc }) => doc.kind === "Kustomization")?.doc;
    expect([...kustomization.resources].sort()).toEqual(files.filter((f) => f !== "kustomization.yaml").sort());
  });

  it("enforce the restricted Pod Security Standard on both namespaces", () => {
    for (const ns of objects.filter((o) => o.kind === "Namespace")) {
      expect(ns.metadata.labels["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    }
  });

  it("run every Deployment unprivileged with a read-only root and pinned images", () => {
    const deployments = objects.filter((o) => o.kind === "Deployment");
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(["arena-web", "arena-worker"]);
    for (const d of deployments) {
      const spec = d.spec.template.spec;
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      expect(spec.securityContext.runAsUser).toBeGreaterThan(0);
      expect(spec.hostNetwork ?? false).toBe(false);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        expect(c.securityContext, c.name).toMatchObject({
          runAsNonRoot: true,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
        expect(c.image).not.toMatch(/:latest$|^[^:@]+$/);
        expect(c.resources?.limits?.memory, c.name).toMatch(/^\d+(Mi|Gi)$/);
      }
      expect(d.spec.selector.matchLabels).toEqual(
        Object.fromEntries(
          Object.keys(d.spec.selector.matchLabels).map((k) => [k, d.spec.template.metadata.labels[k]]),
        ),
      );
    }
  });

  it("give only the worker a service-account token, bound to the least Role the backend needs", () => {
    const web = find("Deployment", "arena-web").spec.template.spec;
    expect(web.automountServiceAccountToken).toBe(false);
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

  it("ship the same default-deny NetworkPolicy the backend ensures", () => {
    const manifest = find("NetworkPolicy", "speculator-arena-evaluation-deny-all");
    const built = buildEvaluationNetworkPolicy({
      namespace: EVALS,
      networkPolicyName: "speculator-arena-evaluation-deny-all",
    });
    expect(manifest.metadata.namespace).toBe(EVALS);
    expect(manifest.spec).toEqual(built.spec);
  });

  it("configure the worker for the kubernetes backend, consistent with its volume and the spec builder", () => {
    const cm = find("ConfigMap", "arena-worker-config").data;
    expect(cm.POD_BACKEND).toBe("kubernetes");
    const config = kubernetesBackendConfigFromEnv(cm);
    expect(config.namespace).toBe(EVALS);
    const worker = find("Deployment", "arena-worker").spec.template.spec;
    const claim = worker.volumes.find((v: Doc) => v.persistentVolumeClaim?.claimName === cm.KUBE_STORAGE_CLAIM);
    expect(claim, "the worker mounts the claim evaluation pods use").toMatchObject({
      persistentVolumeClaim: { claimName: cm.KUBE_STORAGE_CLAIM },
    });
    const mount = worker.containers[0].volumeMounts.find((m: Doc) => m.name === claim.name);
    expect(mount.mountPath).toBe(cm.KUBE_STORAGE_WORKER_ROOT);
    expect(mount.mountPath).toBe(cm.ARENA_DATA_DIR);
    expect(find("PersistentVolumeClaim", cm.KUBE_STORAGE_CLAIM).metadata.namespace).toBe(EVALS);
    // A pod built from this config lands in the namespace the Role covers and the policy selects.
    const root = cm.KUBE_STORAGE_WORKER_ROOT;
    const pod = buildEvaluationPod(
      {
        evaluationId: "ev1",
        attempt: 1,
        taskId: "qwen3-8b",
        profile: "full",
        seed: 1,
        engineDir: `${root}/sealed/ev1/engine`,
        speculatorDir: `${root}/sealed/ev1/speculator`,
        targetDir: `${root}/models/qwen3-8b`,
        stockEngineDir: `${root}/stock`,
        deadlineSeconds: 7200,
      },
      config,
    );
    expect(pod.metadata?.namespace).toBe(find("Role", "arena-worker").metadata.namespace);
  });

  it("hold the environment each program needs, secrets in Secrets", () => {
    const webSecret = find("Secret", "arena-web-secrets").stringData;
    const workerSecret = find("Secret", "arena-worker-secrets").stringData;
    for (const key of ["DATABASE_URL", "REDIS_URL", "NEXTAUTH_SECRET"]) expect(webSecret[key], key).toMatch(/\S/);
    for (const key of ["DATABASE_URL", "REDIS_URL"]) expect(workerSecret[key], key).toMatch(/\S/);
    expect(new URL(webSecret.DATABASE_URL).protocol).toBe("postgresql:");
    for (const cm of objects.filter((o) => o.kind === "ConfigMap")) {
      for (const key of Object.keys(cm.data)) expect(key).not.toMatch(/SECRET|PASSWORD|DATABASE_URL|REDIS_URL/);
    }
    const web = find("Deployment", "arena-web").spec.template.spec.containers[0];
    expect(web.envFrom).toEqual([
      { configMapRef: { name: "arena-web-config" } },
      { secretRef: { name: "arena-web-secrets" } },
    ]);
    const service = find("Service", "arena-web");
    expect(service.spec.selector).toEqual(find("Deployment", "arena-web").spec.template.metadata.labels);
  });
});
