import { enterPodSandbox } from "../sandbox/enter-pod-sandbox";
import { parsePodSandbox } from "../sandbox/pod-sandbox-config";
import { type AgentEnv, agentEnv } from "./env";
import { type EventSink, openEventSink } from "./event-sink";
import { AGENT_EXIT } from "./events";
import { runPod } from "./run-pod";

/**
 * The pod agent: runs one evaluation's pod and reports typed events, one JSON line each, numbered: to its event file
 * where the backend gives one (the local backend: the pod then outlives its worker, which follows the file), else
 * on its standard output. It ends by itself at ARENA_DEADLINE_SECONDS, whether a worker still follows it or not.
 */
const stdout = (line: string) => void process.stdout.write(line);
let sink: EventSink = openEventSink(undefined, stdout);
let ending: "deadline" | undefined;
const controller = new AbortController();

/** Stops the engines (runPod's abort) and exits within `graceMs`, whatever runPod is still doing. */
function abortAndExit(code: number, graceMs: number): void {
  controller.abort();
  setTimeout(() => finish(code), graceMs).unref();
}

function finish(code: number): never {
  process.exit(ending === "deadline" ? AGENT_EXIT.deadline : code);
}

// every end writes its exit line (an uncaught error's too); only a signal it cannot handle leaves none
process.on("exit", (code) => sink.exit(code, ending));
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => abortAndExit(143, 3000));

let env: AgentEnv | undefined;
try {
  env = agentEnv(process.env);
  sink = openEventSink(env.ARENA_EVENTS_FILE, stdout);
  if (env.ARENA_DEADLINE_SECONDS !== undefined) {
    const seconds = env.ARENA_DEADLINE_SECONDS;
    setTimeout(() => {
      sink.emit({ type: "log", level: "error", message: `the pod reached its deadline of ${seconds} s: it ends` });
      // what the engines answer while they are stopped is no outcome of the evaluation
      sink.seal();
      ending = "deadline";
      abortAndExit(AGENT_EXIT.deadline, 8000);
    }, seconds * 1000).unref();
  }
  // the local backend's pod: its mounts and loopback first, before the pool is read or any engine starts
  const sandbox = parsePodSandbox(env.ARENA_SANDBOX);
  if (sandbox) await enterPodSandbox(sandbox);
  await runPod(env, (event) => sink.emit(event), controller.signal);
  finish(AGENT_EXIT.completed);
} catch (error) {
  sink.emit({
    type: "log",
    level: "error",
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  finish(AGENT_EXIT.failed);
}
