/** How the boards and evaluation pages write numbers and times (UTC throughout, as the seed's board does). */

export function formatScore(x: number | null | undefined): string {
  return x === null || x === undefined ? "—" : x.toFixed(3);
}

export function formatRatio(x: number | null | undefined): string {
  return x === null || x === undefined ? "—" : x.toFixed(2);
}

/** Milliseconds with a precision that suits the size: 0.84 ms, 12.3 ms, 1,204 ms. */
export function formatMs(x: number | null | undefined): string {
  if (x === null || x === undefined) return "—";
  if (x < 10) return `${x.toFixed(2)} ms`;
  if (x < 100) return `${x.toFixed(1)} ms`;
  return `${Math.round(x).toLocaleString("en")} ms`;
}

export function formatShare(x: number | null | undefined): string {
  return x === null || x === undefined ? "—" : `${(x * 100).toFixed(1)}%`;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** "10-24 01:47", in UTC. */
export function formatShortTime(date: Date | string | null | undefined): string {
  if (!date) return "—";
  const d = typeof date === "string" ? new Date(date) : date;
  if (Number.isNaN(d.getTime())) return "—";
  return `${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** "2026-10-24 01:47 UTC" */
export function formatUtc(date: Date | string | null | undefined): string {
  if (!date) return "—";
  const d = typeof date === "string" ? new Date(date) : date;
  if (Number.isNaN(d.getTime())) return "—";
  return `${d.getUTCFullYear()}-${formatShortTime(d)} UTC`;
}

/** "4 min 05 s", "37 s", "1 h 02 min". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return "—";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
}

export function formatTokensPerSecond(x: number | null | undefined): string {
  if (x === null || x === undefined) return "—";
  return `${x >= 100 ? Math.round(x).toLocaleString("en") : x.toFixed(1)} tok/s`;
}

/** "org/repo@08610ff" */
export function shortRevision(uri: string, revision: string | null | undefined): string {
  return revision ? `${uri}@${revision.slice(0, 7)}` : uri;
}

/** A pass as readers count it: the judge numbers passes from 0, the page from 1. */
export function passNumber(pass: number): number {
  return pass + 1;
}
