import type { Family, ToolSchemaJson } from "../schema";

/** A turn as a source recorded it, before the builder gives it a budget and a think time. */
export interface RawTurn {
  role: "user" | "tool";
  content: string;
  recordedReply?: string;
  /** A recorded gap before this turn (a tool's execution time), when the source has one. */
  delaySeconds?: number;
}

export interface RawApp {
  id: string;
  family: Family;
  systemPrompt: string;
  tools: ToolSchemaJson[];
  source: string;
  license: string;
}

export interface RawConversation {
  source: string;
  item: string;
  app: string;
  family: Family;
  turns: RawTurn[];
}

export interface ImportResult {
  apps: RawApp[];
  conversations: RawConversation[];
}

/** Tool output beyond this is cut (head and tail kept), as agent frameworks truncate long observations. */
export const MAX_TOOL_CHARS = 6000;

export function clipToolOutput(text: string, max = MAX_TOOL_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  const tail = max - head;
  return `${text.slice(0, head)}\n[... ${text.length - max} characters elided ...]\n${text.slice(text.length - tail)}`;
}

export function readJsonLines(text: string): unknown[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as unknown);
}
