import { KubeConfig } from "@kubernetes/client-node";
import { KubernetesPodBackend } from "./backend";
import type { KubernetesBackendConfig } from "./config";

export { KubernetesPodBackend, type KubernetesPodBackendOptions } from "./backend";
export {
  type KubernetesBackendConfig,
  type KubernetesBackendConfigInput,
  kubernetesBackendConfigFromEnv,
  kubernetesBackendConfigSchema,
  parseKubernetesBackendConfig,
} from "./config";
export { buildEvaluationNetworkPolicy, buildEvaluationPod, EVALUATION_POD_SELECTOR, POD_PATHS } from "./pod-spec";

/**
 * The backend for a worker: the cluster from the in-cluster service account, or from
 * KUBECONFIG / ~/.kube/config outside a cluster (the client library's own lookup).
 */
export function createKubernetesPodBackend(
  config: KubernetesBackendConfig,
  options: { kubeConfig?: KubeConfig; onWarning?: (message: string) => void } = {},
): KubernetesPodBackend {
  let kubeConfig = options.kubeConfig;
  if (!kubeConfig) {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromDefault();
  }
  return new KubernetesPodBackend({ kubeConfig, config, onWarning: options.onWarning });
}
