import { db } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/db/generated/client";
import type { TaskId } from "@/lib/protocol";
import type { TaskBoard } from "./board-entry";
import { activityVersion, boardVersion } from "./board-version";

interface Held {
  version: string;
  value: Promise<unknown>;
}

/** Per database client (a test that points the arena at another database gets a new client, and a new cache). */
const held = new WeakMap<PrismaClient, Map<string, Held>>();

/**
 * `read()`, once per `version` of what it reads, shared by every reader until the version changes: readers who come
 * while it is read wait for the same read. Every reader checks the version first, so nobody is served what is older
 * than the last change at the time they asked. What it holds is shared: callers never change it.
 */
async function cachedPer<T>(
  version: (client: PrismaClient) => Promise<string>,
  key: string,
  read: () => Promise<T>,
): Promise<T> {
  const client = db();
  const now = await version(client);
  let entries = held.get(client);
  if (!entries) {
    entries = new Map();
    held.set(client, entries);
  }
  const current = entries.get(key);
  if (current?.version === now) return current.value as Promise<T>;
  const value = read();
  const entry = { version: now, value };
  entries.set(key, entry);
  // a failed read is not kept: the next reader tries again
  const kept = entries;
  value.catch(() => {
    if (kept.get(key) === entry) kept.delete(key);
  });
  return value;
}

/** A task's board, read once per state of the boards (`boardVersion`: a new score). */
export function cachedBoard(taskId: TaskId, read: (taskId: TaskId) => Promise<TaskBoard>): Promise<TaskBoard> {
  return cachedPer(boardVersion, `board:${taskId}`, () => read(taskId));
}

/** What only scored evaluations decide (the measured durations, say), read once per new score. */
export function cachedPerScore<T>(key: string, read: () => Promise<T>): Promise<T> {
  return cachedPer(boardVersion, `score:${key}`, read);
}

/** What any evaluation's move changes (the newest evaluations, how many are active), read once per move. */
export function cachedPerActivity<T>(key: string, read: () => Promise<T>): Promise<T> {
  return cachedPer(activityVersion, `activity:${key}`, read);
}
