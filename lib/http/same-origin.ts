import { env } from "../env";
import { AppError } from "./app-error";

/** The hosts (host:port) the arena is reached at: the one the request named, and the configured public URLs. */
function ownHosts(headers: Headers): Set<string> {
  const hosts = new Set<string>();
  const host = headers.get("host");
  if (host) hosts.add(host.toLowerCase());
  // A proxy names the host the browser used here; a browser cannot set this header on a cross-origin request
  // without a preflight the arena never answers, so it cannot be used to pass this check.
  const forwarded = headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  if (forwarded) hosts.add(forwarded.toLowerCase());
  for (const url of [env().NEXTAUTH_URL, env().ARENA_PUBLIC_URL]) {
    if (!url) continue;
    try {
      hosts.add(new URL(url).host.toLowerCase());
    } catch {
      // not a URL: nothing to add
    }
  }
  return hosts;
}

/**
 * Refuses a request a browser made for another site: an Origin that is not the arena's own, or a Sec-Fetch-Site of
 * "cross-site" or "same-site". Browsers send both on every cross-origin request that could carry the operator's
 * session cookie; a request with neither comes from no browser, and so carries no cookie but the sender's own.
 */
export function assertSameOrigin(headers: Headers): void {
  const site = headers.get("sec-fetch-site");
  if (site === "cross-site" || site === "same-site") {
    throw new AppError({ code: "forbidden", message: "cross-origin request refused: use the arena's own pages" });
  }
  const origin = headers.get("origin");
  if (origin === null) return;
  let host: string | null = null;
  try {
    host = origin === "null" ? null : new URL(origin).host.toLowerCase();
  } catch {
    host = null;
  }
  if (!host || !ownHosts(headers).has(host)) {
    throw new AppError({
      code: "forbidden",
      message: `cross-origin request refused: origin ${origin.slice(0, 100)} is not this arena's`,
    });
  }
}

/**
 * Refuses a body that is not declared JSON on the operators' JSON API: a form or `text/plain` body is what a page of
 * another site can send without a preflight, so only `application/json` (which needs one) is read.
 */
export function assertJsonContentType(request: Request): void {
  if (request.method === "GET" || request.method === "HEAD") return;
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new AppError({
      code: "unsupported_media_type",
      message: `content-type: must be application/json (got ${type ? type.slice(0, 60) : "none"})`,
    });
  }
}
