import { chmod, chown, copyFile, cp, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadAllYaml } from "@kubernetes/client-node";
import { DEV_POOL_PATH } from "../../../judge/pool/paths";
import { probeHostSandbox } from "../../sandbox/host-sandbox";
import { FakeKubeApi } from "./fake-kube-api";
import { KubeletStandIn } from "./kubelet-stand-in";

const K8S_DIR = fileURLToPath(new URL("../../../../k8s/", import.meta.url));
const SIM_STOCK_ENGINE = fileURLToPath(new URL("../../../sim-engine/engines/stock/", import.meta.url));

/** A program's ConfigMap and Secret of k8s/config.yaml, as `envFrom` hands them to its container. */
export async function envFromManifests(program: "web" | "worker"): Promise<Record<string, string>> {
  const docs = loadAllYaml(await readFile(join(K8S_DIR, "config.yaml"), "utf8")) as Array<{
    kind: string;
    metadata: { name: string };
    data?: Record<string, string>;
    stringData?: Record<string, string>;
  }>;
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
  return {
    ...find("ConfigMap", `arena-${program}-config`)?.data,
    ...find("Secret", `arena-${program}-secrets`)?.stringData,
  };
}

export interface LocalCluster {
  api: FakeKubeApi;
  kubelet: KubeletStandIn;
  /** The folder that holds the arena-storage claim: the worker's ARENA_DATA_DIR. */
  storage: string;
  /** The worker's environment: k8s/config.yaml's, with this machine's folders for the node's paths. */
  workerEnv: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * A cluster on this machine for whole evaluations through the `kubernetes` backend: the local API server, the
 * stand-in kubelet playing its pods (the arena's image is `imageRoot`'s /opt/arena), and the arena-storage claim
 * as a folder, laid out as the manifests say (the stock engine, the hidden pool). The runtime is the simulated
 * engine's: this machine has no GPU.
 */
export async function startLocalCluster(base: string, imageRoot: string, podPidsLimit = 512): Promise<LocalCluster> {
  const manifest = await envFromManifests("worker");
  const root = manifest.ARENA_DATA_DIR!;
  const storage = join(base, "storage");
  // the node's paths, mapped to folders of this machine; everything else is the manifests' own
  const onStorage = (path: string) => join(storage, path.slice(root.length));
  await mkdir(storage, { recursive: true });
  const stockEngine = onStorage(manifest.STOCK_ENGINE_DIR!);
  await cp(SIM_STOCK_ENGINE, stockEngine, { recursive: true });
  const pool = onStorage(manifest.TEST_POOL_PATH!);
  await mkdir(join(pool, ".."), { recursive: true });
  await copyFile(DEV_POOL_PATH, pool);
  // the operators' file, readable by the worker's uid (the agent's too), by no one else
  await chown(pool, 1000, 1000);
  await chmod(pool, 0o600);

  const api = await FakeKubeApi.start();
  const kubeconfig = join(base, "kubeconfig");
  await writeFile(kubeconfig, api.kubeConfig().exportConfig(), { mode: 0o600 });
  const host = await probeHostSandbox();
  const kubelet = new KubeletStandIn(api, {
    images: { [manifest.KUBE_AGENT_IMAGE!]: { "/opt/arena": join(imageRoot, "opt/arena") } },
    claims: { [manifest.KUBE_STORAGE_CLAIM!]: storage },
    root: join(base, "node"),
    cgroups: host.cgroups ?? null,
    podPidsLimit,
  });
  kubelet.start();
  return {
    api,
    kubelet,
    storage,
    workerEnv: {
      ...manifest,
      ARENA_DATA_DIR: storage,
      KUBE_STORAGE_WORKER_ROOT: storage,
      TARGETS_DIR: onStorage(manifest.TARGETS_DIR!),
      STOCK_ENGINE_DIR: stockEngine,
      TEST_POOL_PATH: pool,
      ENGINE_RUNTIME: "sim",
      KUBECONFIG: kubeconfig,
    },
    async stop() {
      await kubelet.stop();
      await api.close();
    },
  };
}
