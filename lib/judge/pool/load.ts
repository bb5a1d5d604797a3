import { readFileSync } from "node:fs";
import { type App, type Pool, type PoolMeta, poolLineZ, type Session } from "./schema";

/**
 * Parses pool JSONL text: app lines and session lines in any order, after at most one meta line (which tokenizer
 * counted the pool); every session's app must exist.
 */
export function parsePool(text: string, origin = "pool"): Pool {
  let meta: PoolMeta | null = null;
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
    if (line.type === "meta") {
      if (meta || apps.size > 0 || sessions.length > 0)
        throw new Error(`${origin}:${i + 1}: the meta line must come first, once`);
      meta = line;
    } else if (line.type === "app") {
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
  return meta ? { apps, sessions, countedBy: meta.countedBy } : { apps, sessions };
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
  if (pool.countedBy) lines.push(JSON.stringify({ type: "meta", countedBy: pool.countedBy } satisfies PoolMeta));
  for (const app of pool.apps.values()) lines.push(JSON.stringify(app));
  for (const s of pool.sessions) lines.push(JSON.stringify(s));
  return `${lines.join("\n")}\n`;
}
