import { rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./arena-stack";
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
});
