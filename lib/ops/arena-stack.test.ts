import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appEnv, persistedSecret, writeEnvFile } from "./arena-stack";

const dir = mkdtempSync(path.join(tmpdir(), "arena-stack-"));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("persistedSecret", () => {
  it("creates a secret once (mode 600) and returns the same one afterwards, unless one is given", () => {
    const file = path.join(dir, "nested", "secret");
    const first = persistedSecret(file);
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(persistedSecret(file)).toBe(first);
    expect(persistedSecret(file, "given-secret")).toBe("given-secret");
    expect(readFileSync(file, "utf8").trim()).toBe(first);
  });
});

describe("writeEnvFile", () => {
  it("writes values a shell reads back exactly, quotes and spaces included", () => {
    const file = path.join(dir, "env");
    const values = {
      ...appEnv({
        databaseUrl: "postgresql://postgres:p%40ss@127.0.0.1:5433/postgres",
        redisUrl: "redis://127.0.0.1:6380",
        port: 3000,
        publicUrl: "http://localhost:3000",
        nextauthSecret: "s3cr3t",
        admin: { email: "admin@arena.local", password: `it's "quoted" $HOME \`x\`` },
        dataDir: "/tmp/arena data",
      }),
    };
    writeEnvFile(file, values);
    const script = `set -a; . "$1"; node -e 'process.stdout.write(JSON.stringify(process.env))'`;
    const read = JSON.parse(
      execFileSync("bash", ["-c", script, "bash", file], { encoding: "utf8", env: {} as NodeJS.ProcessEnv }),
    );
    for (const [key, value] of Object.entries(values)) expect(read[key], key).toBe(value);
    expect(values.POD_BACKEND).toBe("local");
    expect(values.NEXTAUTH_URL).toBe("http://localhost:3000");
  });
});
