import { readFileSync } from "node:fs";
import { type App, type Pool, poolLineZ, type Session } from "./schema";

/** Parses pool JSONL text: app lines and session lines in any order; every session's app must exist. */
export function parsePool(text: string, origin = "pool"): Pool {
  const apps = new Map<string, App>();
  const sessions: Session[] = [];
  const ids = new Set<string>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      throw new Error(`${origin}:${i + 1}: not JSON (${(err as Error).message})`);
    }
    const parsed = poolLineZ.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${origin}:${i + 1}: ${issue?.path.join(".") || "line"}: ${issue?.message ?? "invalid"}`);
    }
    const line = parsed.data;
    if (line.type === "app") {
      if (apps.has(line.id)) throw new Error(`${origin}:${i + 1}: app "${line.id}" defined twice`);
      apps.set(line.id, line);
    } else {
      if (ids.has(line.id)) throw new Error(`${origin}:${i + 1}: session "${line.id}" appears twice`);
      ids.add(line.id);
      sessions.push(line);
    }
  }
  for (const s of sessions) {
    const app = apps.get(s.app);
    if (!app) throw new Error(`${origin}: session "${s.id}" names app "${s.app}", which the pool does not define`);
    if (app.family !== s.family)
      throw new Error(`${origin}: session "${s.id}" is ${s.family} but app "${s.app}" is ${app.family}`);
  }
  if (sessions.length === 0) throw new Error(`${origin}: the pool holds no sessions`);
  return { apps, sessions };
}

export function loadPool(path: string): Pool {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read pool ${path}: ${(err as Error).message}`);
  }
  return parsePool(text, path);
}

export function serializePool(pool: Pool): string {
  const lines: string[] = [];
  for (const app of pool.apps.values()) lines.push(JSON.stringify(app));
  for (const s of pool.sessions) lines.push(JSON.stringify(s));
  return `${lines.join("\n")}\n`;
}
