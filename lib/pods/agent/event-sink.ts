import { closeSync, openSync, writeSync } from "node:fs";
import { type AgentEvent, type AgentExit, podLine } from "./events";

/** Where the agent's events go, each numbered in the order it emitted them (the pod's own sequence). */
export interface EventSink {
  emit(event: AgentEvent): void;
  /** The last line of an event file: how the agent ended (written once; nothing is emitted after it). */
  exit(code: number, reason?: AgentExit["reason"]): void;
  /** Events emitted after this are dropped: the pod is ending, and nothing it says now may read as its outcome. */
  seal(): void;
  readonly emitted: number;
}

/**
 * The agent's sink: the event file when one is given, opened here (before the pod's mounts hide the folder that
 * holds it; the descriptor stays valid and, opened close-on-exec, reaches no engine), else its standard output.
 * A file is appended one whole line per write, so a reader following it never sees two events interleaved.
 */
export function openEventSink(file: string | undefined, stdout: (line: string) => void): EventSink {
  const fd = file === undefined ? null : openSync(file, "a", 0o600);
  const write = (line: string) => {
    if (fd === null) stdout(line);
    else writeSync(fd, line);
  };
  let seq = 0;
  let sealed = false;
  let exited = false;
  return {
    emit(event) {
      if (sealed || exited) return;
      seq += 1;
      write(podLine(seq, event));
    },
    exit(code, reason) {
      if (exited) return;
      exited = true;
      if (fd === null) return;
      const line: AgentExit = reason ? { type: "agent-exit", code, reason } : { type: "agent-exit", code };
      writeSync(fd, `${JSON.stringify(line)}\n`);
      closeSync(fd);
    },
    seal() {
      sealed = true;
    },
    get emitted() {
      return seq;
    },
  };
}
