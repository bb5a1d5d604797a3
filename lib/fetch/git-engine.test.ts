import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../testing/until";
import { FetchError } from "./fetch-errors";
import { fetchEngineFromGit } from "./git-engine";

const run = promisify(execFile);
const LAUNCH = '#!/usr/bin/env bash\ncase "$1" in serve) exec true;; esac\n';

let base: string;
let outside: string;
let commit: string;
let dests = 0;

/** A real repository on disk, served to the fetcher as `file://<base>/org/engines` (GIT_BASE_URL's form). */
async function makeRepository(): Promise<string> {
  const repo = join(base, "org", "engines");
  await mkdir(join(repo, "engine", "inner"), { recursive: true });
  await writeFile(join(repo, "engine", "launch.sh"), LAUNCH);
  await chmod(join(repo, "engine", "launch.sh"), 0o755);
  await writeFile(join(repo, "engine", "inner", "notes.txt"), "inner");
  await mkdir(join(repo, "linked"), { recursive: true });
  await writeFile(join(repo, "linked", "launch.sh"), LAUNCH);
  await symlink("/etc/passwd", join(repo, "linked", "passwd"));
  // links out of the repository: to /etc, and to a folder beside it that holds a launch.sh (as another
  // submission's sealed engine would); and one that points inside it
  await symlink("/etc", join(repo, "l"));
  await symlink(outside, join(repo, "sib"));
  await symlink("engine", join(repo, "alias"));
  await mkdir(join(repo, "nested", "inner"), { recursive: true });
  await symlink("/etc", join(repo, "nested", "inner", "deep"));
  const git = (...args: string[]) =>
    run("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], { cwd: repo });
  await git("init", "-q");
  await git("add", "-A");
  await git("commit", "-q", "-m", "engines");
  return (await git("rev-parse", "HEAD")).stdout.trim();
}

async function fetchSubdir(subdir: string | null) {
  const dest = join(base, `dest-${++dests}`);
  await fetchEngineFromGit({
    uri: "org/engines",
    revision: commit,
    subdir,
    gitBaseUrl: `file://${base}`,
    dest,
    maxBytes: 10_000_000,
  });
  return dest;
}

async function refusal(subdir: string | null): Promise<FetchError> {
  const error = await fetchSubdir(subdir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `subdir ${subdir} must be refused`).toBeInstanceOf(FetchError);
  return error as FetchError;
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "git-engine-test-"));
  outside = join(base, "outside");
  await mkdir(outside);
  await writeFile(join(outside, "launch.sh"), LAUNCH);
  await writeFile(join(outside, "secret.txt"), "another submission's file");
  commit = await makeRepository();
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("fetchEngineFromGit's subdir", () => {
  it("fetches a plain subdir at the exact commit, without .git", async () => {
    for (const subdir of ["engine", "engine/", "./engine/."]) {
      const dest = await fetchSubdir(subdir);
      expect((await readdir(dest)).sort()).toEqual(["inner", "launch.sh"]);
      expect(await readFile(join(dest, "launch.sh"), "utf8")).toBe(LAUNCH);
      expect(await readFile(join(dest, "inner", "notes.txt"), "utf8")).toBe("inner");
    }
  });

  it.each([
    ["l/", "/etc"],
    ["l/./", "/etc"],
    ["l", "/etc"],
    ["./l/", "/etc"],
    ["sib/", "a sibling folder of the repository"],
    ["sib/./", "a sibling folder of the repository"],
  ])("refuses %s, a link to %s, as the submission's fault, naming the subdir", async (subdir) => {
    const error = await refusal(subdir);
    expect(error.fault).toBe("submission");
    expect(error.message).toContain(`engine subdir "${subdir}"`);
    expect(error.message).toMatch(/passes through a link/);
    expect(error.message).not.toContain(base);
  });

  it("refuses a link anywhere in the path, one pointing inside the repository included", async () => {
    const inside = await refusal("alias/");
    expect(inside.message).toBe('engine subdir "alias/" passes through a link ("alias"); links are not allowed');
    const deep = await refusal("nested/inner/deep/");
    expect(deep.fault).toBe("submission");
    expect(deep.message).toContain('("nested/inner/deep")');
  });

  it("refuses .., .git, an absolute path, a file and a missing folder, each naming the subdir", async () => {
    expect((await refusal("engine/../../outside")).message).toMatch(
      /^engine subdir "engine\/\.\.\/\.\.\/outside" climbs out/,
    );
    expect((await refusal(".git")).message).toMatch(/is inside \.git/);
    expect((await refusal("/etc")).message).toMatch(/is absolute/);
    expect((await refusal("engine/launch.sh")).message).toMatch(/is not a directory/);
    expect((await refusal("nowhere")).message).toBe('engine subdir "nowhere" does not exist at that commit');
  });

  it("still refuses a link inside the engine directory, naming it relative to the directory", async () => {
    const error = await refusal("linked");
    expect(error.fault).toBe("submission");
    expect(error.message).toBe('the engine directory holds a link ("passwd"); links are not allowed');
  });

  it("copied nothing from outside the repository for any refused subdir", async () => {
    for (const name of await readdir(base)) {
      if (!name.startsWith("dest-")) continue;
      const files = await readdir(join(base, name), { recursive: true }).catch(() => [] as string[]);
      expect(files).not.toContain("secret.txt");
      expect(files).not.toContain("passwd");
    }
  });

  it("says a commit the repository lacks is the submission's fault, with no server path", async () => {
    const error = await fetchEngineFromGit({
      uri: "org/engines",
      revision: "0".repeat(40),
      subdir: null,
      gitBaseUrl: `file://${base}`,
      dest: join(base, "dest-missing"),
      maxBytes: 1000,
    }).then(
      () => null,
      (e: unknown) => e as FetchError,
    );
    expect(error).toBeInstanceOf(FetchError);
    expect(error!.fault).toBe("submission");
    expect(error!.message).toBe(`engine repository org/engines has no commit ${"0".repeat(40)}`);
  });
});

describe("fetchEngineFromGit's reach", () => {
  const fetchFrom = (gitBaseUrl: string, timeoutMs = 20_000) =>
    fetchEngineFromGit({
      uri: "org/engines",
      revision: commit,
      subdir: null,
      gitBaseUrl,
      dest: join(base, `dest-reach-${++dests}`),
      maxBytes: 1_000_000,
      timeoutMs,
    }).then(
      () => null,
      (e: unknown) => e as FetchError,
    );

  it("gives up on a server that never answers at its timeout, killing git and its helpers, as the arena's fault", async () => {
    const sockets = new Set<Socket>();
    // accepts, reads what git sends, and never answers
    const server = createNetServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const started = Date.now();
      const error = await fetchFrom(`http://127.0.0.1:${port}`, 2_000);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(error).toBeInstanceOf(FetchError);
      expect(error!.fault).toBe("arena");
      expect(error!.message).toBe("the engine repository could not be fetched within 2 s");
      // git's transport helper held the connection; killed with its process group, it lets go
      await until(async () => (sockets.size === 0 ? true : undefined), 5_000, 50);
    } finally {
      server.close();
    }
  });

  it("follows no redirect, to another host or anywhere, and says nothing of what git said", async () => {
    const elsewhere: string[] = [];
    const target = createServer((req, res) => {
      elsewhere.push(req.url ?? "");
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const targetPort = (target.address() as AddressInfo).port;
    const redirector = createServer((req, res) => {
      res.writeHead(302, { location: `http://localhost:${targetPort}${req.url}` }).end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    const port = (redirector.address() as AddressInfo).port;
    try {
      const error = await fetchFrom(`http://127.0.0.1:${port}`);
      expect(error).toBeInstanceOf(FetchError);
      expect(error!.message).toBe("the engine repository could not be fetched");
      expect(error!.fault).toBe("arena");
      expect(elsewhere).toEqual([]);
    } finally {
      redirector.close();
      target.close();
    }
  });

  it("refuses a participant's URL whose host is not allowed, without connecting, as the submission's fault", async () => {
    const error = await fetchEngineFromGit({
      uri: "https://127.0.0.1/org/engines",
      revision: commit,
      subdir: null,
      gitBaseUrl: `file://${base}`,
      dest: join(base, "dest-host"),
      maxBytes: 1000,
      allowedHosts: ["github.com", "huggingface.co"],
    }).then(
      () => null,
      (e: unknown) => e as FetchError,
    );
    expect(error).toBeInstanceOf(FetchError);
    expect(error!.fault).toBe("submission");
    expect(error!.message).toBe('engine repository host "127.0.0.1" is not allowed');
  });
});
