import type { ChatMessage, ToolSchema } from "@/lib/tokenizer/chat-template";
import type { PassResult } from "./run/run-pass";
import type { WorkloadResult } from "./run/run-workload";

/**
 * Records as JSON without repeating histories: every distinct message object and tools array is stored once in a
 * table, and each record lists indexes into it. `expandReport` rebuilds the exact requests.
 */
export interface RecordsReport {
  format: "speculator-arena judge records v1";
  messages: ChatMessage[];
  tools: (readonly ToolSchema[])[];
  workloads: unknown[];
}

export function recordsReport(
  results: readonly WorkloadResult[],
  extra: Record<string, unknown> = {},
): RecordsReport & Record<string, unknown> {
  const messageIds = new Map<ChatMessage, number>();
  const messages: ChatMessage[] = [];
  const toolIds = new Map<readonly ToolSchema[], number>();
  const tools: (readonly ToolSchema[])[] = [];
  const idOf = (m: ChatMessage) => {
    let id = messageIds.get(m);
    if (id === undefined) {
      id = messages.length;
      messages.push(m);
      messageIds.set(m, id);
    }
    return id;
  };
  const toolsId = (t: readonly ToolSchema[]) => {
    let id = toolIds.get(t);
    if (id === undefined) {
      id = tools.length;
      tools.push(t);
      toolIds.set(t, id);
    }
    return id;
  };
  const pass = (p: PassResult) => ({
    ...p,
    originNs: String(p.originNs),
    records: p.records.map((r) => ({ ...r, messages: r.messages.map(idOf), tools: toolsId(r.tools) })),
  });
  return {
    format: "speculator-arena judge records v1",
    ...extra,
    workloads: results.map((w) => ({ ...w, warmup: pass(w.warmup), passes: w.passes.map(pass) })),
    messages,
    tools,
  };
}

/** The messages of a stored record, from the report's tables. */
export function expandMessages(report: Pick<RecordsReport, "messages">, ids: readonly number[]): ChatMessage[] {
  return ids.map((i) => {
    const m = report.messages[i];
    if (!m) throw new Error(`report has no message ${i}`);
    return m;
  });
}
