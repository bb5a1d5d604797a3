import type { BoardEntry } from "./board-entry";

/** How charts and pickers name an entry: its method, who sent it, and its profile when it has one. */
export function entryLabel(e: Pick<BoardEntry, "method" | "kind" | "account" | "profile">): string {
  const profile = e.profile === "full" ? "" : ` [${e.profile}]`;
  return `${e.method || e.kind} · ${e.account}${profile}`;
}

/** Colours that keep 3:1 contrast on white and stay apart for common colour-vision deficiencies. */
export const SERIES_COLOURS = ["#1d4ed8", "#c2410c", "#047857", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#be185d"];
