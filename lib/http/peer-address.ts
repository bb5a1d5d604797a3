import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/**
 * The header that carries the socket's peer address to route handlers, which Next gives no socket. Only this process
 * writes it: the subscriber below overwrites whatever a client sent under the same name, before any handler runs.
 */
export const PEER_HEADER = "x-arena-peer-address";

// One flag per process, not per module instance: instrumentation and the route handlers are bundled apart.
const INSTALLED = Symbol.for("speculator-arena.peer-address-installed");
const flags = globalThis as unknown as Record<symbol, boolean | undefined>;

/**
 * Writes every HTTP request's socket peer into PEER_HEADER as Node's server starts handling it: the
 * `http.server.request.start` channel is published before the server's "request" event, so every handler sees it.
 * Called once per process (Next's instrumentation hook; tests that serve handlers on a real socket).
 */
export function installPeerAddress(): void {
  if (flags[INSTALLED]) return;
  subscribe("http.server.request.start", (message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    request.headers[PEER_HEADER] = socket.remoteAddress ?? "unknown";
  });
  flags[INSTALLED] = true;
}

/** The peer address this process wrote, or null where no subscriber runs (then the header is the client's own). */
export function peerAddress(headers: Headers): string | null {
  if (!flags[INSTALLED]) return null;
  return headers.get(PEER_HEADER);
}
