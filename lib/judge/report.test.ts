import { describe, expect, it } from "vitest";
import type { RequestRecord } from "./records";
import { expandMessages, recordsReport } from "./report";
import type { WorkloadResult } from "./run/run-workload";

describe("recordsReport", () => {
  it("stores each shared message once and rebuilds every request's messages", () => {
    const system = { role: "system" as const, content: "sys" };
    const u0 = { role: "user" as const, content: "hello" };
    const a0 = { role: "assistant" as const, content: "hi" };
    const u1 = { role: "user" as const, content: "more" };
    const tools = [{ type: "function" as const, function: { name: "bash" } }];
    const rec = (messages: RequestRecord["messages"]) => ({ messages, tools }) as unknown as RequestRecord;
    const pass = { originNs: 5n, records: [rec([system, u0]), rec([system, u0, a0, u1])] };
    const result = { warmup: { originNs: 1n, records: [] }, passes: [pass] } as unknown as WorkloadResult;
    const report = recordsReport([result]);
    expect(report.messages).toHaveLength(4);
    expect(report.tools).toHaveLength(1);
    const stored = JSON.parse(JSON.stringify(report));
    const r1 = stored.workloads[0].passes[0].records[1];
    expect(expandMessages(stored, r1.messages)).toEqual([system, u0, a0, u1]);
    expect(stored.workloads[0].passes[0].originNs).toBe("5");
  });
});
