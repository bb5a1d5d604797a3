import { describe, expect, it } from "vitest";
import { freeEngineUser } from "./local-pod-backend";

describe("freeEngineUser", () => {
  it("gives each live pod on a host its own engine user, reusing freed ones", () => {
    expect(freeEngineUser(new Set())).toBe("arena-engine-1");
    expect(freeEngineUser(new Set(["arena-engine-1"]))).toBe("arena-engine-2");
    expect(freeEngineUser(new Set(["arena-engine-2"]))).toBe("arena-engine-1");
    expect(freeEngineUser(new Set(["arena-engine-1", "arena-engine-2", "arena-engine-3"]))).toBe("arena-engine-4");
  });
});
