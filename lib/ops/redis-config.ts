/**
 * Commands that stop, wipe, reconfigure, replicate or copy the server, or change who may do what. Neither the arena
 * (ioredis, BullMQ 5: its Lua scripts, EVALSHA/EVAL, INFO, CLIENT SETNAME/LIST, SCAN) nor anything else of it uses
 * them, so the private server removes them outright (`rename-command X ""`): they are gone for every client, with
 * the password or without. Redis stops on SIGTERM (AOF flushed), so SHUTDOWN is not needed to stop it either.
 */
export const REMOVED_COMMANDS = [
  "SHUTDOWN",
  "FLUSHALL",
  "FLUSHDB",
  "SWAPDB",
  "CONFIG",
  "DEBUG",
  "MODULE",
  "ACL",
  "MONITOR",
  "SLAVEOF",
  "REPLICAOF",
  "SYNC",
  "PSYNC",
  "FAILOVER",
  "MIGRATE",
  "RESTORE",
  "FUNCTION",
  "SAVE",
  "BGSAVE",
  "BGREWRITEAOF",
] as const;

/** Subcommands of commands the arena needs (BullMQ names its connections with CLIENT SETNAME) that no client may run. */
export const DENIED_SUBCOMMANDS = ["client|kill", "client|pause", "client|no-evict"] as const;

export type RedisPersistence = "aof" | "none";

export interface RedisConfigInput {
  port: number;
  /** Where the append-only files live. */
  dir: string;
  password: string;
  /** "aof": every write kept across a restart or a SIGKILL (fsync every second); "none": nothing kept. */
  persistence: RedisPersistence;
}

const quote = (value: string) => `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;

/**
 * The private redis-server's configuration file. It holds the password, so it is written mode 600 and passed as the
 * server's only argument: on the command line the password would be in /proc/<pid>/cmdline, which every user reads.
 */
export function redisConfig(input: RedisConfigInput): string {
  if (!/^[A-Za-z0-9_-]{16,}$/.test(input.password))
    throw new Error("the Redis password must be 16+ url-safe characters");
  const lines = [
    "# written by lib/ops/services.ts on every start",
    "bind 127.0.0.1",
    "protected-mode yes",
    `port ${input.port}`,
    `dir ${quote(input.dir)}`,
    "daemonize no",
    'logfile ""',
    // BullMQ's jobs and schedules are data, not cache: never evicted
    "maxmemory-policy noeviction",
    // The default (and only) user: the password, every key and channel, every command but the denied subcommands.
    `user default on >${input.password} ~* &* +@all ${DENIED_SUBCOMMANDS.map((c) => `-${c}`).join(" ")}`,
    'save ""',
    ...(input.persistence === "aof"
      ? ["appendonly yes", "appendfsync everysec", 'appenddirname "appendonlydir"', "aof-use-rdb-preamble yes"]
      : ["appendonly no"]),
    ...REMOVED_COMMANDS.map((command) => `rename-command ${command} ""`),
  ];
  return `${lines.join("\n")}\n`;
}
