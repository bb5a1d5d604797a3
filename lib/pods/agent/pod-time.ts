/**
 * Where a pod's time went, read from its evaluation's stored events (each stamped when the worker relayed it): engine
 * starts, warm-ups, the timed passes' fixed seconds, their graces, device-idle waits, the checks per engine, engine
 * stops, and the pod's own start and end. Only the passes' fixed seconds are the measurement the protocol pays for;
 * everything else is the overhead that issue 18's GPU-hours target holds to 15% of the pod's time.
 */

export interface StoredEvent {
  type: string;
  data: Record<string, unknown>;
  /** When it was stored, in ms since the epoch. */
  at: number;
}

export type PodTimeKind =
  | "pod-start"
  | "engine-start"
  | "warm-up"
  | "pass-setup"
  | "timed-pass"
  | "grace"
  | "engine-stop"
  | "device-idle"
  | "checks"
  | "gates-and-teardown";

export interface PodTimeSegment {
  kind: PodTimeKind;
  /** What it is, for the table: `candidate solo pass 1`, `stock checks: fidelity`, `candidate engine start (checks)`. */
  label: string;
  seconds: number;
}

export interface PodTimeBreakdown {
  totalSeconds: number;
  /** The timed passes' fixed seconds: the part of the pod's time that is measurement. */
  timedSeconds: number;
  /** Everything else, as a share of the pod's time. */
  outsideShare: number;
  segments: PodTimeSegment[];
  byKind: Record<PodTimeKind, number>;
}

type State =
  | { kind: "pod-start" }
  | { kind: "engine-start"; engine: string; checks: boolean }
  | { kind: "engine-idle"; engine: string }
  | { kind: "timed-pass"; label: string }
  | { kind: "grace"; label: string }
  | { kind: "engine-stop"; engine: string; checks: boolean }
  /** After an engine stopped: the wait for the device before the stock engine's checks start, or nothing. */
  | { kind: "after-stop"; beforeStockChecks: boolean }
  | { kind: "device-idle" }
  | { kind: "checks"; engine: string; check: string }
  | { kind: "gates-and-teardown" };

const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" ? v : Number.NaN);
const terminal = new Set(["scored", "failed", "void", "cancelled"]);

/**
 * Splits the pod's time, from the evaluation's move to `running` (the pod being started) to its final status, into
 * segments by the events between. A pass's fixed end is not an event: it is placed at its start plus its fixed
 * seconds, and what runs past it until the pass ends is its grace (with the metrics read after it).
 */
export function podTimeBreakdown(events: readonly StoredEvent[]): PodTimeBreakdown {
  const sorted = [...events].sort((a, b) => a.at - b.at);
  const from = sorted.find((e) => e.type === "status" && e.data.status === "running");
  if (!from) throw new Error("the evaluation never moved to running: no pod time to split");
  const to = sorted.find((e) => e.at >= from.at && e.type === "status" && terminal.has(str(e.data.status)));
  if (!to) throw new Error("the evaluation has not ended: its pod time is not whole yet");
  const within = sorted.filter((e) => e.at >= from.at && e.at <= to.at && e !== from && e !== to);

  // the passes' fixed ends, as markers between the events
  type Marker = StoredEvent | { type: "fixed-end"; data: Record<string, unknown>; at: number };
  const all: Marker[] = [...within];
  for (const e of within)
    if (e.type === "pass-started")
      all.push({ type: "fixed-end", data: e.data, at: e.at + num(e.data.fixedSeconds) * 1000 });
  // a pass cut short by the pod's end (a void or cancelled evaluation) ends with it
  const markers = all.filter((m) => m.at <= to.at).sort((a, b) => a.at - b.at);

  const segments: PodTimeSegment[] = [];
  let state: State = { kind: "pod-start" };
  let phase = "";
  let last = from.at;
  const passLabel = (d: Record<string, unknown>) => `${str(d.engine)} ${str(d.workload)} pass ${num(d.pass) + 1}`;
  const close = (at: number, next: Marker | undefined) => {
    const seconds = (at - last) / 1000;
    last = at;
    if (seconds <= 0) return;
    const segment = label(state, next);
    const previous = segments.at(-1);
    if (previous && previous.label === segment.label && previous.kind === segment.kind) previous.seconds += seconds;
    else segments.push({ ...segment, seconds });
  };
  // an engine that is up between passes: a warm-up when the next pass is a workload's first, else the next pass's set-up
  const label = (s: State, next: Marker | undefined): Omit<PodTimeSegment, "seconds"> => {
    switch (s.kind) {
      case "pod-start":
        return { kind: "pod-start", label: "pod start (agent, tokenizer, sandbox)" };
      case "engine-start":
        return { kind: "engine-start", label: `${s.engine} engine start${s.checks ? " (checks)" : ""}` };
      case "engine-idle": {
        const upcoming = nextPassStart(markers, next);
        if (upcoming && num(upcoming.data.pass) === 0)
          return { kind: "warm-up", label: `${s.engine} ${str(upcoming.data.workload)} warm-up` };
        if (upcoming) return { kind: "pass-setup", label: `${s.engine} between passes` };
        return { kind: "pass-setup", label: `${s.engine} after its last pass` };
      }
      case "timed-pass":
        return { kind: "timed-pass", label: s.label };
      case "grace":
        return { kind: "grace", label: `${s.label} grace` };
      case "engine-stop":
        return { kind: "engine-stop", label: `${s.engine} engine stop${s.checks ? " (checks)" : ""}` };
      case "after-stop":
        return s.beforeStockChecks
          ? { kind: "device-idle", label: "device-idle wait between the checks" }
          : { kind: "engine-stop", label: "after the engine stopped" };
      case "device-idle":
        return { kind: "device-idle", label: "device-idle wait before the stock engine" };
      case "checks":
        return { kind: "checks", label: `${s.engine} checks: ${s.check}` };
      case "gates-and-teardown":
        return { kind: "gates-and-teardown", label: "gates, result and pod end" };
    }
  };

  for (const e of markers) {
    close(e.at, e);
    const d = e.data;
    const checks = phase.startsWith("checks");
    switch (e.type) {
      case "phase":
        phase = str(d.phase);
        if (phase === "device-idle") state = { kind: "device-idle" };
        else if (phase === "gates") state = { kind: "gates-and-teardown" };
        break;
      case "engine":
        if (d.state === "starting") state = { kind: "engine-start", engine: str(d.engine), checks };
        else if (d.state === "healthy")
          state = checks
            ? { kind: "checks", engine: str(d.engine), check: "set-up" }
            : { kind: "engine-idle", engine: str(d.engine) };
        else if (d.state === "stopping") state = { kind: "engine-stop", engine: str(d.engine), checks };
        else if (d.state === "stopped") state = { kind: "after-stop", beforeStockChecks: phase === "checks-candidate" };
        break;
      case "pass-started":
        state = { kind: "timed-pass", label: passLabel(d) };
        break;
      case "fixed-end":
        // only its own pass's: a pass-started stored late puts its fixed end after its pass-ended, or in the next pass
        if (state.kind === "timed-pass" && state.label === passLabel(d)) state = { kind: "grace", label: passLabel(d) };
        break;
      case "pass-ended":
        state = { kind: "engine-idle", engine: str(d.engine) };
        break;
      case "check-progress":
        if (num(d.done) === 0) state = { kind: "checks", engine: str(d.engine), check: str(d.check) };
        break;
    }
  }
  close(to.at, undefined);

  const byKind = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<PodTimeKind, number>;
  for (const s of segments) byKind[s.kind] += s.seconds;
  const totalSeconds = (to.at - from.at) / 1000;
  const timedSeconds = byKind["timed-pass"];
  return {
    totalSeconds,
    timedSeconds,
    outsideShare: totalSeconds > 0 ? 1 - timedSeconds / totalSeconds : 0,
    segments,
    byKind,
  };
}

export const KINDS: readonly PodTimeKind[] = [
  "pod-start",
  "engine-start",
  "warm-up",
  "timed-pass",
  "grace",
  "pass-setup",
  "engine-stop",
  "device-idle",
  "checks",
  "gates-and-teardown",
];

function nextPassStart(markers: readonly { type: string; data: Record<string, unknown> }[], from: unknown) {
  const start = from === undefined ? markers.length : markers.indexOf(from as never);
  for (let i = start; i < markers.length; i++) {
    const m = markers[i]!;
    if (m.type === "pass-started") return m;
    if (m.type === "engine" && m.data.state === "stopping") return undefined;
  }
  return undefined;
}
