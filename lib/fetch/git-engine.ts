import { execFile } from "node:child_process";
import { cp, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { FetchError } from "./fetch-errors";

const run = promisify(execFile);

export interface GitEngineFetch {
  uri: string;
  revision: string;
  subdir: string | null;
  gitBaseUrl: string;
  dest: string;
  maxBytes: number;
}

/** "org/repo" resolves against the configured git host; a full URL is used as given. */
export function repositoryUrl(uri: string, gitBaseUrl: string): string {
  if (/^https:\/\//.test(uri)) return uri;
  return `${gitBaseUrl.replace(/\/$/, "")}/${uri.replace(/\.git$/, "")}`;
}

async function duBytes(dir: string): Promise<number> {
  const { stdout } = await run("du", ["-sb", "--exclude=.git", dir]);
  return Number.parseInt(stdout.split(/\s/)[0] ?? "0", 10);
}

/** Fetches an engine directory from a git repository at an exact commit (`subdir` honoured, at most `maxBytes`). */
export async function fetchEngineFromGit(input: GitEngineFetch): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "arena-git-"));
  const git = (args: string[]) =>
    run("git", ["-c", "credential.helper=", "-c", "core.askPass=true", ...args], { cwd: work });
  try {
    await git(["init", "-q"]);
    await git(["remote", "add", "origin", repositoryUrl(input.uri, input.gitBaseUrl)]);
    try {
      await git(["fetch", "-q", "--depth", "1", "origin", input.revision]);
    } catch (error) {
      const text = String((error as { stderr?: string }).stderr ?? error);
      const missing =
        /not our ref|couldn't find remote ref|does not appear to be a git repository|not found|Repository not found/i.test(
          text,
        );
      throw new FetchError(
        missing
          ? `engine repository ${input.uri} has no commit ${input.revision}`
          : `the engine repository could not be fetched (${text.trim().split("\n").pop()})`,
        missing ? "submission" : "arena",
      );
    }
    await git(["-c", "advice.detachedHead=false", "checkout", "-q", input.revision]);
    const root = input.subdir ? join(work, input.subdir) : work;
    const info = await stat(root).catch(() => null);
    if (!info?.isDirectory())
      throw new FetchError(`engine subdir "${input.subdir}" does not exist at that commit`, "submission");
    if (!(await stat(join(root, "launch.sh")).catch(() => null))?.isFile()) {
      throw new FetchError("the engine directory has no launch.sh", "submission");
    }
    const { stdout: links } = await run("find", [root, "-path", "*/.git", "-prune", "-o", "-type", "l", "-print"]);
    if (links.trim()) {
      throw new FetchError(
        `the engine directory holds a link (${links.trim().split("\n")[0]}); links are not allowed`,
        "submission",
      );
    }
    const bytes = await duBytes(root);
    if (bytes > input.maxBytes) {
      throw new FetchError(`the engine directory holds ${bytes} bytes, more than ${input.maxBytes}`, "submission");
    }
    await cp(root, input.dest, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => !source.split("/").includes(".git"),
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
