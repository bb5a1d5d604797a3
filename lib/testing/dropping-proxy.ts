import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxiedStream {
  path: string;
  lastEventId: string | null;
  /** Whether the proxy cut this connection. */
  dropped: boolean;
}

export interface DroppingProxy {
  url: string;
  /** Every event-stream request that passed, in order. */
  streams: ProxiedStream[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of the arena that passes everything through, and cuts the event-stream connections (paths
 * ending in `/events`) that `cut` picks mid-body, once `cutWhen` says so about the text forwarded on that connection
 * so far: the client sees its socket close in the middle of a chunked response, as a network drop looks.
 */
export async function startDroppingProxy(
  upstream: string,
  options: { cut: (stream: ProxiedStream) => boolean; cutWhen: (forwarded: string) => boolean },
): Promise<DroppingProxy> {
  const target = new URL(upstream);
  const streams: ProxiedStream[] = [];
  const server = createServer((req, res) => {
    const isStream = (req.url ?? "").split("?")[0]!.endsWith("/events");
    const entry: ProxiedStream | null = isStream
      ? { path: req.url ?? "", lastEventId: header(req.headers, "last-event-id"), dropped: false }
      : null;
    if (entry) streams.push(entry);
    const cut = entry !== null && options.cut(entry);
    const forward = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        // a connection of its own per request: a cut stream's socket is never handed to the next request
        agent: false,
        headers: { ...req.headers, host: target.host },
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        let forwarded = "";
        upstreamRes.on("data", (chunk: Buffer) => {
          if (entry?.dropped) return;
          if (!cut) return void res.write(chunk);
          forwarded += chunk.toString("utf8");
          if (!options.cutWhen(forwarded)) return void res.write(chunk);
          entry!.dropped = true;
          upstreamRes.destroy();
          // the socket closes once what was forwarded reached it: the client has the headers and the events before
          // the cut, as a drop in the middle of a body looks (cut in the same turn, it would see no response at all)
          res.write(chunk, () => res.socket?.destroy());
        });
        upstreamRes.on("end", () => res.end());
        upstreamRes.on("error", () => res.destroy());
      },
    );
    forward.on("error", () => res.destroy());
    res.on("close", () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    streams,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}
