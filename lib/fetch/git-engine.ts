import { execFile, spawn } from "node:child_process";
import { cp, lstat, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { promisify } from "node:util";
import { env } from "../env";
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
  /** The hosts a participant's https URL may name (GIT_ALLOWED_HOSTS when not given). */
  allowedHosts?: readonly string[];
  /** How long the fetch and checkout may take together (GIT_FETCH_TIMEOUT_SECONDS when not given). */
  timeoutMs?: number;
}

/** "org/repo" resolves against the configured git host; a full URL is used as given. */
export function repositoryUrl(uri: string, gitBaseUrl: string): string {
  if (/^https:\/\//.test(uri)) return uri;
  return `${gitBaseUrl.replace(/\/$/, "")}/${uri.replace(/\.git$/, "")}`;
}

/**
 * Where the participant's URL may point: a full https URL must name an allowed host (an internal address, or any
 * other host, is never fetched from); "org/repo" goes to GIT_BASE_URL, which the operators chose.
 */
export function assertAllowedHost(uri: string, allowedHosts: readonly string[]): void {
  if (!/^https:\/\//.test(uri)) return;
  let host: string;
  try {
    host = new URL(uri).hostname.toLowerCase();
  } catch {
    throw new FetchError("the engine repository's URL is not a URL", "submission");
  }
  if (!allowedHosts.includes(host)) {
    throw new FetchError(`engine repository host "${host}" is not allowed`, "submission");
  }
}

/** A git command that failed or ran past its deadline; `stderr` is for the log only. */
class GitFailure extends Error {
  constructor(
    readonly stderr: string,
    readonly timedOut: boolean,
  ) {
    // the message stays generic wherever it ends up; what git said is only ever logged
    super(timedOut ? "git ran past its deadline" : "git failed");
    this.name = "GitFailure";
  }
}

/** The most of git's stderr kept for the log. */
const STDERR_BYTES = 16 * 1024;

/**
 * Runs git in its own process group, killed whole (git and the transport helpers it starts) once `deadline`
 * passes. Its stderr is for the worker's log only: public reasons never quote it.
 */
function git(args: string[], cwd: string, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, detached: true, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let timedOut = false;
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < STDERR_BYTES) stderr += chunk.toString("utf8").slice(0, STDERR_BYTES - stderr.length);
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        killGroup();
      },
      Math.max(0, deadline - Date.now()),
    );
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new GitFailure(String(error), timedOut));
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      // whatever git left running in its group (a transport helper) goes with it
      killGroup();
      if (code === 0 && !timedOut) resolve();
      else reject(new GitFailure(stderr, timedOut));
    });
  });
}

/**
 * The configuration every git command runs with: no credentials and no prompts, only the URL's own protocol (no
 * `ext::`, no `file://` unless the operators' base is one), no redirects (so a host on the allow-list cannot send
 * git elsewhere), LFS content never downloaded (its servers are other hosts), and a transfer that stalls aborted.
 */
function gitConfig(url: string): string[] {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase() ?? "https";
  return [
    ["credential.helper", ""],
    ["core.askPass", "true"],
    ["protocol.allow", "never"],
    [`protocol.${scheme}.allow`, "always"],
    ["http.followRedirects", "false"],
    ["http.lowSpeedLimit", "1000"],
    ["http.lowSpeedTime", "60"],
    ["filter.lfs.smudge", "git-lfs smudge --skip -- %f"],
    ["filter.lfs.process", "git-lfs filter-process --skip"],
    ["filter.lfs.required", "false"],
  ].flatMap(([key, value]) => ["-c", `${key}=${value}`]);
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

/** Fetches an engine directory from a git repository at an exact commit (`subdir` honoured, at most `maxBytes`). */
export async function fetchEngineFromGit(input: GitEngineFetch): Promise<void> {
  const allowedHosts = input.allowedHosts ?? env().GIT_ALLOWED_HOSTS;
  const timeoutMs = input.timeoutMs ?? env().GIT_FETCH_TIMEOUT_SECONDS * 1000;
  assertAllowedHost(input.uri, allowedHosts);
  const url = repositoryUrl(input.uri, input.gitBaseUrl);
  const deadline = Date.now() + timeoutMs;
  const within = `within ${Math.round(timeoutMs / 1000)} s`;
  const work = await mkdtemp(join(tmpdir(), "arena-git-"));
  const config = gitConfig(url);
  try {
    await git(["init", "-q"], work, deadline);
    await git(["remote", "add", "origin", url], work, deadline);
    try {
      await git([...config, "fetch", "-q", "--no-tags", "--depth", "1", "origin", input.revision], work, deadline);
    } catch (failure) {
      if (!(failure instanceof GitFailure)) throw failure;
      const { stderr, timedOut } = failure;
      logger.warn("the engine repository could not be fetched", { uri: input.uri, timedOut, stderr });
      if (timedOut) throw new FetchError(`the engine repository could not be fetched ${within}`, "arena");
      if (/not our ref|couldn't find remote ref|upload-pack: not our ref/i.test(stderr)) {
        throw new FetchError(`engine repository ${input.uri} has no commit ${input.revision}`, "submission");
      }
      if (
        /does not appear to be a git repository|repository '.*' not found|Repository not found|Authentication failed|could not read Username/i.test(
          stderr,
        )
      ) {
        throw new FetchError(`engine repository ${input.uri} was not found (or is not public)`, "submission");
      }
      throw new FetchError("the engine repository could not be fetched", "arena");
    }
    try {
      await git([...config, "-c", "advice.detachedHead=false", "checkout", "-q", input.revision], work, deadline);
    } catch (failure) {
      if (!(failure instanceof GitFailure)) throw failure;
      const { stderr, timedOut } = failure;
      logger.warn("the fetched engine commit could not be checked out", { uri: input.uri, timedOut, stderr });
      throw new FetchError(
        timedOut
          ? `the engine repository could not be fetched ${within}`
          : "the fetched commit could not be checked out",
        "arena",
      );
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
