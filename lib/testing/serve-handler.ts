import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

type Handler = (request: Request) => Promise<Response>;

/** Serves a fetch-style handler over a real socket on 127.0.0.1, streaming responses as Next does. */
export async function serveHandler(
  handler: Handler,
  port = 0,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(async (req: IncomingMessage, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body,
      signal: controller.signal,
      ...(body ? { duplex: "half" } : {}),
    } as RequestInit);
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    controller.signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined));
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
  // the client often shares this process and blocks its loop (execFileSync) between two requests: at Node's 5 s the
  // server's idle timer and the client's reuse of that socket then race, and the request meets ECONNRESET
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    server,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
