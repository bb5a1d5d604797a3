import { describe, expect, it } from "vitest";
import { GET as getVersion } from "@/app/api/protocol/[version]/route";
import { GET as getCurrent } from "@/app/api/protocol/route";

describe("GET /api/protocol", () => {
  it("serves the version in force as JSON with the seed's values", async () => {
    const answer = getCurrent();
    // a reader keeps it a minute; nothing compresses it per answer (protocol-cache.ts)
    expect(answer.headers.get("cache-control")).toBe("public, max-age=60, no-transform");
    const body = (await answer.json()) as {
      version: string;
      tasks: Record<string, { maxModelLen: number; gates: { fidelityCeiling: { value: number } } }>;
      budgets: { participant: { dev: number } };
    };
    expect(body.version).toBe("1");
    expect(body.tasks["qwen3-8b"]!.maxModelLen).toBe(40_960);
    expect(body.tasks["qwen35-27b"]!.gates.fidelityCeiling.value).toBe(0.017);
    expect(body.budgets.participant.dev).toBe(20);
  });

  it("serves an earlier version by number and 404s an unknown one", async () => {
    const ok = await getVersion(new Request("http://a/api/protocol/1"), { params: Promise.resolve({ version: "1" }) });
    expect(ok.status).toBe(200);
    const missing = await getVersion(new Request("http://a/api/protocol/9"), {
      params: Promise.resolve({ version: "9" }),
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: { code: "not_found", message: "protocol version 9 does not exist" },
    });
  });
});
