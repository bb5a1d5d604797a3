import { enterPodSandbox } from "../sandbox/enter-pod-sandbox";
import { parsePodSandbox } from "../sandbox/pod-sandbox-config";
import { agentEnv } from "./env";
import type { AgentEvent } from "./events";
import { runPod } from "./run-pod";

/** The pod agent: runs one evaluation's pod and reports typed events, one JSON line each, on stdout. */
const emit = (event: AgentEvent) => process.stdout.write(`${JSON.stringify(event)}\n`);
const controller = new AbortController();
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    controller.abort();
    setTimeout(() => process.exit(143), 3000).unref();
  });
}

try {
  const env = agentEnv(process.env);
  // the local backend's pod: its mounts and loopback first, before the pool is read or any engine starts
  const sandbox = parsePodSandbox(env.ARENA_SANDBOX);
  if (sandbox) await enterPodSandbox(sandbox);
  await runPod(env, emit, controller.signal);
  process.exit(0);
} catch (error) {
  emit({
    type: "log",
    level: "error",
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  process.exit(1);
}
