import { db } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/db/generated/client";
import type { TaskId } from "@/lib/protocol";
import type { TaskBoard } from "./board-entry";
import { boardVersion } from "./board-version";

interface Held {
  version: string;
  board: Promise<TaskBoard>;
}

/** Per database client (a test that points the arena at another database gets a new client, and a new cache). */
const held = new WeakMap<PrismaClient, Map<TaskId, Held>>();

/**
 * A task's board, read once per state of the boards (`boardVersion`) and shared by every reader until a new score:
 * readers who come while it is read wait for the same read. Every reader checks the version first, so nobody is
 * served a board older than the last score at the time they asked. The board is shared: callers never change it.
 */
export async function cachedBoard(taskId: TaskId, read: (taskId: TaskId) => Promise<TaskBoard>): Promise<TaskBoard> {
  const client = db();
  const version = await boardVersion(client);
  let boards = held.get(client);
  if (!boards) {
    boards = new Map();
    held.set(client, boards);
  }
  const current = boards.get(taskId);
  if (current?.version === version) return current.board;
  const board = read(taskId);
  const entry = { version, board };
  boards.set(taskId, entry);
  // a failed read is not kept: the next reader tries again
  board.catch(() => {
    if (boards.get(taskId) === entry) boards.delete(taskId);
  });
  return board;
}
