import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postChat, streamChat } from "./openai-client";

/** The unanswered check's log line shows these messages: each transport failure must say what failed. */
let server: Server | null = null;

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handle);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(null));
  server = null;
});

const endpoint = (baseUrl: string) => ({ baseUrl, model: "target" });

describe("the checks' requests name what failed on the way", () => {
  it("a connection closed before any answer: fetch's 'fetch failed' with the socket's cause", async () => {
    const url = await serve((req) => req.socket.destroy());
    const error = await postChat(endpoint(url), { messages: [] }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^fetch failed: .*(other side closed|ECONNRESET|socket)/i);
  });

  it("a connection closed before any answer is asked again, up to twice; an answer, even an error, is final", async () => {
    let requests = 0;
    const flaky = await serve((req, res) => {
      requests++;
      // the first two connections close as a server's idle close meets a request written on a kept-alive socket
      if (requests <= 2) return req.socket.destroy();
      req.resume();
      req.on("end", () => res.end(JSON.stringify({ ok: requests })));
    });
    expect(await postChat(endpoint(flaky), { messages: [] })).toEqual({ ok: 3 });
    expect(requests).toBe(3);

    requests = 0;
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    const refusing = await serve((_req, res) => {
      requests++;
      res.writeHead(500).end("no");
    });
    const error = (await postChat(endpoint(refusing), { messages: [] }).catch((e: Error) => e)) as Error;
    expect(error.message).toBe("engine answered 500: no");
    expect(requests).toBe(1);
  });

  it("a port nobody listens on: the refusal", async () => {
    const url = await serve(() => undefined);
    server!.close();
    await once(server!, "close");
    const error = (await postChat(endpoint(url), { messages: [] }).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/^fetch failed: .*ECONNREFUSED/);
  });

  it("an engine that never answers: the request's own deadline", async () => {
    const url = await serve(() => undefined);
    const error = (await postChat(endpoint(url), { messages: [] }, { timeoutMs: 200 }).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/deadline passed/);
  });

  it("a stream cut mid-reply: the body's cause, while the engine's own error passes as it said it", async () => {
    const cut = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n', () => res.socket?.destroy());
    });
    const error = (await streamChat(endpoint(cut), { messages: [] }).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/^terminated: .*(other side closed|ECONNRESET|socket)/i);
    server?.closeAllConnections();
    server?.close();

    const said = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('data: {"error":{"message":"out of memory"}}\n\n');
    });
    const own = (await streamChat(endpoint(said), { messages: [] }).catch((e: Error) => e)) as Error;
    expect(own.message).toBe('engine streamed an error: {"message":"out of memory"}');
  });
});
