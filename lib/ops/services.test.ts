import { readFileSync, rmSync, statSync } from "node:fs";
import { Socket } from "node:net";
import path from "node:path";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./arena-stack";
import { DENIED_SUBCOMMANDS, REMOVED_COMMANDS } from "./redis-config";
import { checkPostgres, checkRedis, ensurePostgres, ensureRedis } from "./services";

// Under the checkout (not a mode-700 temp dir) so the postgres user reaches it in place, as in .arena/.
const scratch = path.join(repoRoot, ".arena", `services-test-${process.pid}`);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("ensurePostgres", () => {
  it("starts an embedded cluster on 127.0.0.1, keeps its data across restarts, and stops it", async () => {
    const dataDir = path.join(scratch, "pg");
    const first = await ensurePostgres({ dataDir, port: 0 });
    expect(first.owned).toBe(true);
    expect(first.url).toMatch(/^postgresql:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/postgres$/);
    await query(first.url, "CREATE TABLE kept (n INTEGER); INSERT INTO kept VALUES (42)");
    await first.stop();
    await expect(checkPostgres(first.url)).rejects.toThrow(/does not answer/);

    const second = await ensurePostgres({ dataDir, port: 0 });
    try {
      expect(await query(second.url, "SELECT n FROM kept")).toEqual([{ n: 42 }]);
      const withoutPassword = second.url.replace(/:[^:@]+@/, "@");
      await expect(checkPostgres(withoutPassword)).rejects.toThrow(/password/);
    } finally {
      await second.stop();
    }
  });

  it("uses a given server as is, and names it (password masked) when it does not answer", async () => {
    await expect(ensurePostgres({ url: "postgresql://u:secret@127.0.0.1:1/x", dataDir: scratch })).rejects.toThrow(
      "PostgreSQL at postgresql://u:***@127.0.0.1:1/x does not answer",
    );
  });
});

/** Sends commands over RESP on one connection (after AUTH when a password is given); each reply's first line. */
async function resp(port: number, commands: string[][], password?: string): Promise<string[]> {
  const all = password ? [["AUTH", password], ...commands] : commands;
  const socket = new Socket();
  const replies: string[] = [];
  let buffer = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(commands)}`)), 5_000);
      socket.once("error", reject);
      socket.on("data", (chunk) => {
        buffer += chunk.toString("utf8");
        for (let cut = buffer.indexOf("\r\n"); cut !== -1; cut = buffer.indexOf("\r\n")) {
          const line = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          // a bulk string's payload follows its $length line: keep the length line as the reply
          if (line.startsWith("$") && line !== "$-1") {
            const length = Number(line.slice(1));
            if (buffer.length < length + 2) {
              buffer = `${line}\r\n${buffer}`;
              return;
            }
            buffer = buffer.slice(length + 2);
          }
          replies.push(line);
          if (replies.length === all.length) {
            clearTimeout(timer);
            resolve();
          }
        }
      });
      socket.connect(port, "127.0.0.1", () => {
        for (const args of all)
          socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`);
      });
    });
  } finally {
    socket.destroy();
  }
  return password ? replies.slice(1) : replies;
}

/** The local addresses a TCP socket listens on for `port`, from /proc/net/tcp and tcp6 (hex, as the kernel writes). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const found: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === "0A" && local?.endsWith(`:${hexPort}`)) found.push(local.slice(0, -5));
    }
  }
  return found;
}

describe("ensureRedis", () => {
  it("starts a private redis-server that answers PING, and stops it", async () => {
    const redis = await ensureRedis({ dir: path.join(scratch, "redis"), port: 0 });
    expect(redis.owned).toBe(true);
    await expect(checkRedis(redis.url)).resolves.toBeUndefined();
    await redis.stop();
    await expect(checkRedis(redis.url, 1_000)).rejects.toThrow(/does not answer/);
  });

  it("names a given Redis that does not answer", async () => {
    await expect(ensureRedis({ url: "redis://127.0.0.1:1", dir: scratch })).rejects.toThrow(
      "Redis at redis://127.0.0.1:1 does not answer",
    );
  });

  it("closes the private server: a password, 127.0.0.1 only, no command that stops, wipes or reconfigures it", async () => {
    const dir = path.join(scratch, "redis-closed");
    const redis = await ensureRedis({ dir, port: 0 });
    try {
      const url = new URL(redis.url);
      const port = Number(url.port);
      const password = decodeURIComponent(url.password);
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(readFileSync(`${dir}-password`, "utf8").trim()).toBe(password);
      expect(statSync(`${dir}-password`).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(dir, "redis.conf")).mode & 0o777).toBe(0o600);
      // every user reads /proc/<pid>/cmdline: the password is only in the mode-600 configuration file
      const cmdline = readFileSync(`/proc/${redis.pid}/cmdline`, "utf8");
      expect(cmdline).not.toContain(password);
      expect(listeningAddresses(port)).toEqual(["0100007F"]);

      // What an engine that reached the port tried: all refused before any command runs.
      const forged = JSON.stringify({ type: "status", data: { status: "scored", specscore: 99 } });
      const refused = await resp(port, [
        ["PING"],
        ["SHUTDOWN", "NOSAVE"],
        ["PUBLISH", "arena:evaluation:x:events", forged],
        ["KEYS", "*"],
      ]);
      // a removed command is unknown even before authentication
      expect(refused).toEqual([
        "-NOAUTH Authentication required.",
        "-ERR unknown command 'SHUTDOWN', with args beginning with: 'NOSAVE' ",
        "-NOAUTH Authentication required.",
        "-NOAUTH Authentication required.",
      ]);
      expect(await resp(port, [["AUTH", "not-the-password"]])).toEqual([
        "-WRONGPASS invalid username-password pair or user is disabled.",
      ]);

      // With the password: the removed commands do not exist, the denied subcommands are refused.
      const removed = await resp(
        port,
        REMOVED_COMMANDS.map((command) => [command, ...(command === "SHUTDOWN" ? ["NOSAVE"] : ["GET", "dir"])]),
        password,
      );
      removed.forEach((reply, i) => {
        expect(reply, REMOVED_COMMANDS[i]).toMatch(new RegExp(`^-ERR unknown command '${REMOVED_COMMANDS[i]}'`));
      });
      const denied = await resp(
        port,
        [
          ["CLIENT", "KILL", "127.0.0.1:1"],
          ["CLIENT", "PAUSE", "100000"],
          ["CLIENT", "NO-EVICT", "on"],
        ],
        password,
      );
      denied.forEach((reply, i) => {
        expect(reply).toBe(`-NOPERM this user has no permissions to run the '${DENIED_SUBCOMMANDS[i]}' command`);
      });
      expect(await resp(port, [["PING"]], password)).toEqual(["+PONG"]);
      await expect(checkRedis(redis.url)).resolves.toBeUndefined();
    } finally {
      await redis.stop();
    }
  });

  it("serves everything BullMQ needs with those commands removed: jobs, workers, schedulers", async () => {
    const redis = await ensureRedis({ dir: path.join(scratch, "redis-bullmq"), port: 0 });
    const connections: Redis[] = [];
    const connection = () => {
      connections.push(new Redis(redis.url, { maxRetriesPerRequest: null }));
      return connections.at(-1)!;
    };
    const queue = new Queue("closed-check", { connection: connection(), prefix: "t" });
    const seen: unknown[] = [];
    const worker = new Worker(
      "closed-check",
      async (job) => {
        seen.push(job.data);
      },
      { connection: connection(), prefix: "t" },
    );
    try {
      await queue.upsertJobScheduler("every-minute", { every: 60_000 }, { name: "tick" });
      expect((await queue.getJobScheduler("every-minute"))?.every).toBe(60_000);
      await queue.add("one", { n: 1 }, { jobId: "one" });
      for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(seen).toContainEqual({ n: 1 });
      expect(await (await queue.getJob("one"))?.getState()).toBe("completed");
      expect((await queue.getWorkers()).length).toBe(1);
    } finally {
      await worker.close();
      await queue.close();
      // BullMQ leaves connections it was given open
      for (const c of connections) await c.quit();
      await redis.stop();
    }
  });
});
