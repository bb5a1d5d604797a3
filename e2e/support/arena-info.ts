import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/** Where global setup leaves the throwaway arena's address and admin credentials for the tests. */
export const arenaInfoFile = path.resolve(import.meta.dirname, "../artifacts/arena.json");

export const arenaInfoSchema = z.object({
  url: z.string().url(),
  admin: z.object({ email: z.string().email(), password: z.string().min(8) }),
  databaseUrl: z.string(),
  redisUrl: z.string(),
});

export type ArenaInfo = z.infer<typeof arenaInfoSchema>;

export function readArenaInfo(): ArenaInfo {
  let raw: string;
  try {
    raw = readFileSync(arenaInfoFile, "utf8");
  } catch {
    throw new Error(`${arenaInfoFile} is missing: the e2e tests run under playwright.config.ts's global setup`);
  }
  return arenaInfoSchema.parse(JSON.parse(raw));
}
