import type { ChildProcess } from "node:child_process";

export interface Backoff {
  /** The pause before the first restart; each restart in a row doubles it... */
  firstMs: number;
  /** ...up to this. */
  maxMs: number;
  /** A process that ran this long before it died starts the count again from the first pause. */
  resetAfterMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { firstMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 };

/** The pause before restart number `restart` (1, 2, …) of a row of quick deaths. */
export function restartDelay(restart: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  return Math.min(backoff.firstMs * 2 ** Math.max(0, restart - 1), backoff.maxMs);
}

/** How a process ended, as a log line says it. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

export interface Supervised {
  readonly name: string;
  /** The process running now (none while a restart waits). */
  current(): ChildProcess | undefined;
  /** How many times it was restarted. */
  readonly restarts: number;
  /** No restart after this (a shutdown has begun: a process that dies now is not brought back). */
  halt(): void;
  /** Stops it for good: no restart after this. */
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  /** How the log names it ("the worker", "the private redis-server"). */
  name: string;
  /** Starts it; resolves with its process once started (a start that throws is tried again after the next pause). */
  start: () => Promise<ChildProcess>;
  /** Stops a running process (SIGTERM, then SIGKILL). */
  stop: (child: ChildProcess) => Promise<void>;
  log: (line: string) => void;
  backoff?: Backoff;
  /** A process already started (by `start`'s own code), watched from now instead of starting one. */
  initial?: ChildProcess;
  /** Called when it died, before the pause: what it left behind (its process group's other members) goes. */
  reap?: (child: ChildProcess) => void;
}

/**
 * Keeps a process running: when it dies (a crash, a SIGKILL, an OOM kill), it is started again after a pause that
 * doubles with each quick death in a row (1 s, 2 s, 4 s… up to 30 s; a process that ran a minute starts the count
 * again), with a log line each time, and nothing else is touched. Only `stop` ends it.
 */
export async function supervise(options: SuperviseOptions): Promise<Supervised> {
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  let child: ChildProcess | undefined;
  let stopped = false;
  let restarts = 0;
  let inARow = 0;
  let wake: (() => void) | undefined;

  const watch = (running: ChildProcess, startedAt: number) => {
    running.once("exit", (code, signal) => {
      if (stopped || child !== running) return;
      child = undefined;
      options.reap?.(running);
      if (Date.now() - startedAt >= backoff.resetAfterMs) inARow = 0;
      void restart(describeExit(code, signal));
    });
  };

  const restart = async (why: string) => {
    for (;;) {
      inARow += 1;
      const delay = restartDelay(inARow, backoff);
      options.log(
        `${options.name} exited (${why}); restarting it in ${(delay / 1000).toFixed(1)} s (restart ${restarts + 1})`,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (stopped) return;
      try {
        const started = await options.start();
        restarts += 1;
        if (stopped) {
          await options.stop(started);
          return;
        }
        child = started;
        watch(started, Date.now());
        options.log(`${options.name} is running again (pid ${started.pid}, restart ${restarts})`);
        return;
      } catch (error) {
        why = `its restart failed: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  };

  child = options.initial ?? (await options.start());
  watch(child, Date.now());
  return {
    name: options.name,
    current: () => child,
    get restarts() {
      return restarts;
    },
    halt() {
      stopped = true;
      wake?.();
    },
    async stop() {
      stopped = true;
      wake?.();
      const running = child;
      child = undefined;
      if (running) await options.stop(running);
    },
  };
}
