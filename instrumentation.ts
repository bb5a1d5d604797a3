/**
 * Next's start-up hook, run once per server process before it serves a request. Route handlers get no socket, so
 * the peer address each request came from is written into a header only this process sets (lib/http/peer-address.ts).
 * The final evaluations' pages are rendered ahead of their readers (lib/page-cache/start-prerender.ts).
 */
export async function register(): Promise<void> {
  // Next's documented guard: node:diagnostics_channel exists in the Node.js runtime only.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installPeerAddress } = await import("./lib/http/peer-address");
  installPeerAddress();
  const { startPrerender } = await import("./lib/page-cache/start-prerender");
  startPrerender();
}
