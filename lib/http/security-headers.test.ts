import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_SERVER } from "next/constants";
import loadCustomRoutes from "next/dist/lib/load-custom-routes";
import { buildCustomRoute } from "next/dist/server/lib/router-utils/filesystem";
import { describe, expect, it } from "vitest";
import config from "@/next.config";

/** Every page and route the app serves, and Next's own assets. */
const PATHS = [
  "/",
  "/tasks/qwen3-8b",
  "/evaluations/clx0abc",
  "/gates",
  "/protocol",
  "/submit",
  "/register",
  "/admin",
  "/admin/sign-in",
  "/api/protocol",
  "/api/protocol/1",
  "/api/submissions",
  "/api/submissions/clx0abc/events",
  "/api/budget",
  "/api/register",
  "/api/admin/tokens/clx0abc/revoke",
  "/api/auth/callback/credentials",
  "/_next/static/chunks/app/page.js",
  "/icon.svg",
  "/no-such-page",
];

/** The headers Next adds to a response for `path`, matched by Next's own code from the config's header rules. */
async function headersFor(phase: string, path: string): Promise<Record<string, string>> {
  const { headers } = await loadCustomRoutes(config(phase));
  const out: Record<string, string> = {};
  for (const rule of headers) {
    const built = buildCustomRoute("header", rule) as { match: (path: string) => false | object };
    if (built.match(path) === false) continue;
    for (const { key, value } of rule.headers) out[key.toLowerCase()] = value;
  }
  return out;
}

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(";").map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name!, values];
    }),
  );
}

describe("the security headers", () => {
  it.each(PATHS)("are on %s", async (path) => {
    const headers = await headersFor(PHASE_PRODUCTION_SERVER, path);
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("same-origin");
    expect(headers["x-frame-options"]).toBe("DENY");
    const csp = directives(headers["content-security-policy"] ?? "");
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(csp.get("default-src")).toEqual(["'self'"]);
  });

  it("let the pages load only the arena's own scripts, styles and connections, and evaluate nothing in production", async () => {
    const csp = directives((await headersFor(PHASE_PRODUCTION_SERVER, "/submit"))["content-security-policy"]!);
    // Next's App Router streams its payload in inline scripts; React and the charts set inline styles
    expect(csp.get("script-src")).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp.get("style-src")).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp.get("connect-src")).toEqual(["'self'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("base-uri")).toEqual(["'self'"]);
    expect(csp.get("form-action")).toEqual(["'self'"]);
    const dev = directives((await headersFor(PHASE_DEVELOPMENT_SERVER, "/"))["content-security-policy"]!);
    expect(dev.get("script-src")).toContain("'unsafe-eval'");
    expect(dev.get("connect-src")).toContain("ws:");
  });

  it("cover what the pages' own code loads and calls: the arena's origin only", async () => {
    // connect-src and script-src allow only 'self': every fetch, EventSource, script and frame in the app is relative
    const sources: string[] = [];
    for (const root of ["app", "components"]) {
      for (const entry of await readdir(root, { recursive: true })) {
        if (/\.(tsx?|jsx?)$/.test(entry) && !entry.endsWith(".test.ts") && !entry.endsWith(".test.tsx")) {
          sources.push(await readFile(join(root, entry), "utf8"));
        }
      }
    }
    expect(sources.length).toBeGreaterThan(20);
    const code = sources.join("\n");
    expect(code).toMatch(/fetch\(/);
    expect(code).not.toMatch(/(fetch|EventSource|WebSocket)\(\s*[`'"]https?:/);
    expect(code).not.toMatch(/<(script|iframe|embed|object)\b[^>]*\bsrc=\{?[`'"]https?:/);
    expect(code).not.toMatch(/\beval\(|new Function\(/);
  });
});
