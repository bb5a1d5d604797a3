import type { Profile } from "@/lib/protocol";
import { getProfile } from "@/lib/protocol";
import type { App, Pool, Session } from "../pool/schema";

/** A small synthetic pool for tests: `n` sessions per family, `turns` turns each, fixed think times. */
export function fixturePool(
  options: { perFamily?: number; turns?: number; thinkSeconds?: number; maxTokens?: number } = {},
): Pool {
  const perFamily = options.perFamily ?? 40;
  const turns = options.turns ?? 3;
  const apps: App[] = [
    {
      type: "app",
      id: "agent-app",
      family: "agent",
      systemPrompt: "You are a coding agent. Use the tools.",
      tools: [
        { type: "function", function: { name: "bash", description: "run a command", parameters: { type: "object" } } },
      ],
      source: "fixture",
      license: "none",
    },
    {
      type: "app",
      id: "chat-app",
      family: "chat",
      systemPrompt: "You are a helpful assistant.",
      tools: [],
      source: "fixture",
      license: "none",
    },
  ];
  const sessions: Session[] = [];
  for (const family of ["agent", "chat"] as const) {
    for (let i = 0; i < perFamily; i++) {
      sessions.push({
        type: "session",
        id: `${family}-${i}`,
        app: family === "agent" ? "agent-app" : "chat-app",
        family,
        source: "fixture",
        sourceItem: String(i),
        turns: Array.from({ length: turns }, (_, t) => ({
          role: family === "agent" && t > 0 ? ("tool" as const) : ("user" as const),
          content: `${family} session ${i} turn ${t}: please continue the work.`,
          maxTokens: options.maxTokens ?? 64,
          thinkSeconds: t === 0 ? 0 : (options.thinkSeconds ?? 0),
        })),
      });
    }
  }
  return { apps: new Map(apps.map((a) => [a.id, a])), sessions };
}

/** The `ci` profile with shorter passes, for tests that time themselves. */
export function testProfile(overrides: Partial<Profile> = {}): Profile {
  const ci = getProfile("ci")!;
  return { ...ci, name: "test", passSeconds: { solo: 1, team: 1, busy: 1 }, graceSeconds: 2, ...overrides };
}
