/**
 * Live progress of one evaluation, folded from its event stream (GET /api/submissions/{id}/events):
 * first a `state` event with the evaluation as it stands, then the stored events in order. Pure, so the
 * page's client component and its tests fold the same way; unknown or malformed events are ignored.
 */

export const TERMINAL = ["scored", "failed", "void", "cancelled"] as const;

export interface LivePass {
  engine: string;
  workload: string;
  pass: number;
  elapsedSeconds: number;
  fixedSeconds: number | null;
  requests: number;
  tokensPerSecond: number | null;
  done: boolean;
  failed: number | null;
}

/** One check's requests to one engine, as they settle (the agent's `check-progress` events). */
export interface LiveCheck {
  engine: string;
  check: string;
  done: number;
  total: number;
}

/** The `queue` event: its place in the queue and the wait, pushed each time the queue moves. */
export interface LiveQueue {
  position: number;
  ahead: number;
  running: number;
  slots: number;
  estimate: {
    startsAt: string;
    finishesAt: string;
    basis: { profile: string; medianSeconds: number; runs: number }[];
  } | null;
  unmeasured: string[];
}

export interface LiveState {
  status: string;
  phase: string | null;
  reason: string | null;
  queuePosition: number | null;
  queue: LiveQueue | null;
  /** Each check's progress, in the order they started. */
  checks: LiveCheck[];
  engine: { name: string; state: string; detail: string | null } | null;
  current: LivePass | null;
  passes: LivePass[];
  /** The last device-memory reading: whose, in which window, and the limit it is held to (when the agent sent them). */
  memory: { usedMib: number; totalMib: number | null; limitMib?: number; engine?: string; window?: string } | null;
  log: string[];
  lastSeq: number;
  /** When the page should fetch the finished evaluation. */
  finished: boolean;
}

export function initialLiveState(status: string, phase: string | null, queuePosition: number | null): LiveState {
  return {
    status,
    phase,
    reason: null,
    queuePosition,
    queue: null,
    checks: [],
    engine: null,
    current: null,
    passes: [],
    memory: null,
    log: [],
    lastSeq: 0,
    finished: (TERMINAL as readonly string[]).includes(status),
  };
}

type Data = Record<string, unknown>;
const str = (d: Data, ...keys: string[]): string | null => {
  for (const k of keys) if (typeof d[k] === "string") return d[k] as string;
  return null;
};
const numOf = (d: Data, ...keys: string[]): number | null => {
  for (const k of keys) if (typeof d[k] === "number" && Number.isFinite(d[k])) return d[k] as number;
  return null;
};

const LOG_LINES = 30;

function upsertPass(passes: LivePass[], next: LivePass): LivePass[] {
  const i = passes.findIndex((p) => p.engine === next.engine && p.workload === next.workload && p.pass === next.pass);
  if (i === -1) return [...passes, next];
  const copy = passes.slice();
  copy[i] = next;
  return copy;
}

function passKey(d: Data): { engine: string; workload: string; pass: number } | null {
  const engine = str(d, "engine");
  const workload = str(d, "workload");
  const pass = numOf(d, "pass");
  return engine && workload && pass !== null ? { engine, workload, pass } : null;
}

/** Folds one event into the state; `seq` is the SSE id (0 for the opening `state` event). */
export function applyEvent(state: LiveState, type: string, raw: unknown, seq = 0): LiveState {
  if (seq > 0 && seq <= state.lastSeq) return state;
  const s: LiveState = { ...state, lastSeq: Math.max(state.lastSeq, seq) };
  if (typeof raw !== "object" || raw === null) return s;
  const d = raw as Data;
  switch (type) {
    case "state": {
      const inner = (typeof d.evaluation === "object" && d.evaluation !== null ? d.evaluation : d) as Data;
      const status = str(inner, "status") ?? s.status;
      return {
        ...s,
        status,
        phase: str(inner, "phase") ?? s.phase,
        reason: str(inner, "reason") ?? s.reason,
        queuePosition:
          numOf(inner, "queue_position", "queuePosition") ?? (status === "queued" ? s.queuePosition : null),
        queue: status === "queued" ? s.queue : null,
        finished: (TERMINAL as readonly string[]).includes(status),
      };
    }
    case "status": {
      const status = str(d, "status") ?? s.status;
      return {
        ...s,
        status,
        phase: str(d, "phase") ?? s.phase,
        reason: str(d, "reason") ?? s.reason,
        queuePosition: status === "queued" ? s.queuePosition : null,
        queue: status === "queued" ? s.queue : null,
        finished: (TERMINAL as readonly string[]).includes(status),
      };
    }
    case "phase":
      // a new phase ends the last pass: it is kept in the list, no longer shown as current
      return { ...s, phase: str(d, "phase", "name") ?? s.phase, queuePosition: null, queue: null, current: null };
    case "queue": {
      const position = numOf(d, "position");
      if (position === null || s.status !== "queued") return s;
      return { ...s, queuePosition: position, queue: liveQueue(d, position) };
    }
    case "check-progress": {
      const engine = str(d, "engine");
      const check = str(d, "check");
      const done = numOf(d, "done");
      const total = numOf(d, "total");
      if (!engine || !check || done === null || total === null) return s;
      const next: LiveCheck = { engine, check, done, total };
      const i = s.checks.findIndex((c) => c.engine === engine && c.check === check);
      const checks = i === -1 ? [...s.checks, next] : s.checks.map((c, j) => (j === i ? next : c));
      return { ...s, checks, current: null };
    }
    case "engine": {
      const name = str(d, "engine");
      const engineState = str(d, "state");
      return name && engineState ? { ...s, engine: { name, state: engineState, detail: str(d, "detail") } } : s;
    }
    case "pass-started":
    case "pass-progress": {
      const key = passKey(d);
      if (!key) return s;
      const pass: LivePass = {
        ...key,
        elapsedSeconds: numOf(d, "elapsedSeconds", "elapsed_seconds", "elapsed") ?? 0,
        fixedSeconds: numOf(d, "fixedSeconds", "fixed_seconds", "seconds"),
        requests: numOf(d, "requestsDone", "requests_done", "requests") ?? 0,
        tokensPerSecond: numOf(d, "tokensPerSecond", "tokens_per_second"),
        done: false,
        failed: null,
      };
      return { ...s, current: pass, passes: upsertPass(s.passes, pass), queuePosition: null, queue: null };
    }
    case "pass-ended": {
      const key = passKey(d);
      if (!key) return s;
      const before = s.passes.find(
        (p) => p.engine === key.engine && p.workload === key.workload && p.pass === key.pass,
      );
      const pass: LivePass = {
        ...key,
        elapsedSeconds: before?.fixedSeconds ?? before?.elapsedSeconds ?? 0,
        fixedSeconds: before?.fixedSeconds ?? null,
        requests: numOf(d, "requests") ?? before?.requests ?? 0,
        tokensPerSecond: numOf(d, "speed", "tokensPerSecond") ?? before?.tokensPerSecond ?? null,
        done: true,
        failed: numOf(d, "failed"),
      };
      const current =
        s.current &&
        s.current.engine === key.engine &&
        s.current.workload === key.workload &&
        s.current.pass === key.pass
          ? pass
          : s.current;
      return { ...s, current, passes: upsertPass(s.passes, pass) };
    }
    case "memory": {
      const used = numOf(d, "usedMib", "used_mib", "peak_mib");
      if (used === null) return s;
      const limitMib = numOf(d, "limitMib", "limit_mib");
      const engine = str(d, "engine");
      const window = str(d, "window");
      return {
        ...s,
        memory: {
          usedMib: used,
          totalMib: numOf(d, "totalMib", "total_mib"),
          ...(limitMib !== null ? { limitMib } : {}),
          ...(engine ? { engine } : {}),
          ...(window ? { window } : {}),
        },
      };
    }
    case "log": {
      const line = str(d, "message", "line");
      if (line === null) return s;
      const level = str(d, "level");
      return { ...s, log: [...s.log, level && level !== "info" ? `${level}: ${line}` : line].slice(-LOG_LINES) };
    }
    case "result": {
      const outcome = str(d, "outcome", "status");
      return {
        ...s,
        status: outcome ?? s.status,
        reason: str(d, "reason") ?? s.reason,
        finished: outcome !== null || s.finished,
      };
    }
    default:
      return s;
  }
}

function liveQueue(d: Data, position: number): LiveQueue {
  const e = typeof d.estimate === "object" && d.estimate !== null ? (d.estimate as Data) : null;
  const startsAt = e ? str(e, "startsAt") : null;
  const finishesAt = e ? str(e, "finishesAt") : null;
  const basis = e && Array.isArray(e.basis) ? (e.basis as Data[]) : [];
  return {
    position,
    ahead: numOf(d, "ahead") ?? Math.max(0, position - 1),
    running: numOf(d, "running") ?? 0,
    slots: numOf(d, "slots") ?? 1,
    estimate:
      startsAt && finishesAt
        ? {
            startsAt,
            finishesAt,
            basis: basis.flatMap((b) => {
              const profile = typeof b === "object" && b !== null ? str(b, "profile") : null;
              const medianSeconds = profile ? numOf(b, "medianSeconds") : null;
              return profile && medianSeconds !== null ? [{ profile, medianSeconds, runs: numOf(b, "runs") ?? 0 }] : [];
            }),
          }
        : null,
    unmeasured: Array.isArray(d.unmeasured) ? d.unmeasured.filter((x): x is string => typeof x === "string") : [],
  };
}
