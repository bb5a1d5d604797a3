import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { env } from "../env";
import { logger } from "../logger";

/** What an absolute path of the arena's host becomes in public text. */
export const PATH_WORD = "[arena path]";

/** Top-level folders of a host's file system: an absolute path under one of them names the host's files. */
const HOST_ROOTS = new Set([
  "app",
  "bin",
  "boot",
  "data",
  "dev",
  "etc",
  "home",
  "lib",
  "lib64",
  "media",
  "mnt",
  "nix",
  "opt",
  "private",
  "proc",
  "root",
  "run",
  "sbin",
  "srv",
  "sys",
  "tmp",
  "Users",
  "usr",
  "var",
  "work",
  "workspace",
]);

/**
 * An absolute path: a "/" that no word, dot, colon or slash precedes (so not a URL's path, "org/repo", "1/3" or
 * "tok/s"), then path characters. Quotes and brackets around it stay.
 */
const ABSOLUTE_PATH = /(?<![\w.:/~-])\/[^\s'"`()<>[\]{},;]*/g;

/** The engine's HTTP endpoints the protocol names (`/health`, `/v1/chat/completions`, `/metrics`): not files. */
const ENDPOINT = /^\/(health|metrics|v1(\/[\w.-]+)*|api(\/[\w.-]+)*)\/?$/;

function hostPrefixes(): string[] {
  // the arena's processes run from the repository (its data dir is relative to it); the host roots catch the rest
  const prefixes = [tmpdir(), process.cwd()];
  try {
    prefixes.push(resolve(env().ARENA_DATA_DIR));
  } catch {
    // no parsed environment (a script without DATABASE_URL): the other prefixes and the host roots still apply
  }
  return prefixes.map((p) => p.replace(/\/+$/, "")).filter((p) => p.length > 1);
}

function isHostPath(path: string, prefixes: readonly string[]): boolean {
  if (ENDPOINT.test(path)) return false;
  if (prefixes.some((p) => path === p || path.startsWith(`${p}/`))) return true;
  const segments = path.split("/").filter(Boolean);
  if (segments.length === 0) return false;
  // "/tmp", "/etc/passwd", "/work/main/x"; an unknown root counts when the path goes deeper than one folder
  return HOST_ROOTS.has(segments[0]!) || segments.length >= 2;
}

/** A `file://` URL names a host path too (a local GIT_BASE_URL, a repository on disk). */
const FILE_URL = /file:\/\/[^\s'"`()<>[\]{},;]*/g;

/** Replaces every absolute path of the arena's host in `text` with a neutral word; returns what it replaced. */
export function scrubHostPaths(text: string): { text: string; replaced: string[] } {
  const prefixes = hostPrefixes();
  const replaced: string[] = [];
  const withoutUrls = text.replace(FILE_URL, (match) => {
    const url = match.replace(/[.:]+$/, "");
    replaced.push(url);
    return PATH_WORD + match.slice(url.length);
  });
  const out = withoutUrls.replace(ABSOLUTE_PATH, (match) => {
    const path = match.replace(/[.:]+$/, "");
    if (!isHostPath(path, prefixes)) return match;
    replaced.push(path);
    return PATH_WORD + match.slice(path.length);
  });
  return { text: out, replaced };
}

/**
 * The guard where public text about an evaluation is stored (its reason, its events' words): whatever absolute
 * path of the host it still holds is replaced, and the original is logged for the operators. Reasons are made
 * path-free at their source; this catches the ones that are not.
 */
export function publicText(text: string, context: Record<string, unknown> = {}): string {
  const { text: scrubbed, replaced } = scrubHostPaths(text);
  if (replaced.length > 0)
    logger.warn("public text held a server path; it was replaced", { ...context, original: text });
  return scrubbed;
}

/** publicText for a nullable reason. */
export function publicReason(reason: string | null, context: Record<string, unknown> = {}): string | null {
  return reason === null ? null : publicText(reason, context);
}
