import { applyEvent, initialLiveState, type LivePass, type LiveState } from "../board/live-progress";
import { STATUS_MEANING } from "./format";
import { passBar } from "./progress-bar";

export interface Output {
  write(text: string): unknown;
}

const passKey = (p: LivePass) => `${p.engine}/${p.workload}/${p.pass}`;

/**
 * Prints an evaluation's events as they come, from the arena's stream or the local agent (the same events): status,
 * phases, engines, warnings and errors as lines, and each pass as a progress bar, redrawn in place on a terminal and
 * printed once when the pass ends. Folds with the evaluation page's own fold (lib/board/live-progress.ts).
 */
export class ProgressPrinter {
  state: LiveState = initialLiveState("unknown", null, null);
  /** Passes per workload, once known (the profile's). */
  passes: number | null = null;
  private barShown = false;
  private readonly ended = new Set<string>();

  constructor(
    private readonly out: Output,
    private readonly tty: boolean,
  ) {}

  line(text: string): void {
    this.clearBar();
    this.out.write(`${text}\n`);
  }

  clearBar(): void {
    if (this.barShown) this.out.write("\r\x1b[2K");
    this.barShown = false;
  }

  /** Folds one event (`seq` its stream id, 0 when it has none) and prints what changed. */
  apply(type: string, data: unknown, seq = 0): void {
    const before = this.state;
    const state = applyEvent(before, type, data, seq);
    this.state = state;
    if (state === before) return;
    if (state.status !== before.status && type !== "state") {
      const meaning = STATUS_MEANING[state.status];
      this.line(`status ${state.status}${state.reason ? `: ${state.reason}` : meaning ? ` — ${meaning}` : ""}`);
    }
    if (state.phase !== before.phase && state.phase) this.line(`phase ${state.phase}`);
    const engine = state.engine;
    if (engine && (engine.name !== before.engine?.name || engine.state !== before.engine?.state)) {
      this.line(`  ${engine.name} engine ${engine.state}${engine.detail ? `: ${engine.detail}` : ""}`);
    }
    if (type === "log" && state.log !== before.log) {
      const last = state.log.at(-1);
      if (last && /^(warn|error): /.test(last)) this.line(`  ${last}`);
    }
    for (const pass of state.passes) {
      if (pass.done && !this.ended.has(passKey(pass))) {
        this.ended.add(passKey(pass));
        this.line(`  ${passBar(pass, this.passes)}`);
      }
    }
    const current = state.current;
    if (this.tty && current && !current.done) {
      this.out.write(`\r\x1b[2K  ${passBar(current, this.passes)}`);
      this.barShown = true;
    }
  }
}
