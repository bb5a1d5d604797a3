import { execFile } from "node:child_process";
import { cp, lstat, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { promisify } from "node:util";
import { logger } from "../logger";
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

/**
 * Resolves `subdir` inside the checkout `work` to a real directory, refusing (as the submission's fault) anything
 * that is not one: a ".." or ".git" step, a link at any step of the path (even one that points inside the
 * repository: the worker runs as root, and what it copies must be what the path names), a path that does not exist
 * or is not a directory, and, checked again on the resolved path, anything outside the checkout.
 */
export async function resolveSubdir(work: string, subdir: string | null): Promise<string> {
  const root = await realpath(work);
  if (!subdir) return root;
  const named = `engine subdir "${subdir}"`;
  const steps = subdir.split("/").filter((s) => s !== "" && s !== ".");
  if (subdir.startsWith("/"))
    throw new FetchError(`${named} is absolute: it must be a path inside the repository`, "submission");
  if (steps.includes("..")) throw new FetchError(`${named} climbs out of the repository ("..")`, "submission");
  if (steps.includes(".git")) throw new FetchError(`${named} is inside .git`, "submission");
  let at = root;
  for (const [i, step] of steps.entries()) {
    at = join(at, step);
    const here = steps.slice(0, i + 1).join("/");
    const info = await lstat(at).catch(() => null);
    if (!info) throw new FetchError(`${named} does not exist at that commit`, "submission");
    if (info.isSymbolicLink())
      throw new FetchError(`${named} passes through a link ("${here}"); links are not allowed`, "submission");
    if (!info.isDirectory()) throw new FetchError(`${named} is not a directory ("${here}" is a file)`, "submission");
  }
  const real = await realpath(at);
  if (real !== root && !real.startsWith(`${root}${sep}`))
    throw new FetchError(`${named} resolves outside the repository`, "submission");
  return real;
}

/** The last line git wrote, without the checkout's own path (the public reason never names a server path). */
function gitSaid(error: unknown, work: string): string {
  const text = String((error as { stderr?: string }).stderr ?? error).trim();
  return (text.split("\n").pop() ?? "").split(work).join("<checkout>");
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
      if (!missing) logger.warn("the engine repository could not be fetched", { uri: input.uri, stderr: text });
      throw new FetchError(
        missing
          ? `engine repository ${input.uri} has no commit ${input.revision}`
          : `the engine repository could not be fetched (${gitSaid(error, work)})`,
        missing ? "submission" : "arena",
        { cause: error },
      );
    }
    try {
      await git(["-c", "advice.detachedHead=false", "checkout", "-q", input.revision]);
    } catch (error) {
      throw new FetchError(`the fetched commit could not be checked out (${gitSaid(error, work)})`, "arena", {
        cause: error,
      });
    }
    const root = await resolveSubdir(work, input.subdir);
    if (!(await lstat(join(root, "launch.sh")).catch(() => null))?.isFile()) {
      throw new FetchError("the engine directory has no launch.sh (a file)", "submission");
    }
    const { stdout: links } = await run("find", [root, "-path", "*/.git", "-prune", "-o", "-type", "l", "-print"]);
    if (links.trim()) {
      const first = relative(root, links.trim().split("\n")[0]!);
      throw new FetchError(`the engine directory holds a link ("${first}"); links are not allowed`, "submission");
    }
    const bytes = await duBytes(root);
    if (bytes > input.maxBytes) {
      throw new FetchError(`the engine directory holds ${bytes} bytes, more than ${input.maxBytes}`, "submission");
    }
    await cp(root, input.dest, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => !relative(root, source).split(sep).includes(".git"),
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
