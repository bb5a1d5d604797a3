import { chmod, rm } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { z } from "zod";

/** What the launcher says first: who it is, and whether it can keep the engines in hand (PID 1, non-dumpable). */
export const launcherHelloSchema = z.object({
  t: z.literal("hello"),
  pid: z.number().int(),
  uid: z.number().int(),
  gid: z.number().int(),
  undumpable: z.boolean(),
  python: z.string(),
});

const messageSchema = z.discriminatedUnion("t", [
  launcherHelloSchema,
  z.object({ t: z.literal("line"), id: z.string(), s: z.enum(["o", "e"]), text: z.string() }),
  z.object({ t: z.literal("exit"), id: z.string(), code: z.number().int().nullable(), signal: z.string().nullable() }),
  z.looseObject({ t: z.literal("reply"), id: z.string(), ok: z.boolean(), error: z.string().optional() }),
]);

export type LauncherHello = z.infer<typeof launcherHelloSchema>;
export type LauncherReply = Extract<z.infer<typeof messageSchema>, { t: "reply" }>;
export interface LauncherExit {
  code: number | null;
  signal: string | null;
}

/** The launcher is gone (its container ended): nothing more can be asked of it. */
export class LauncherLostError extends Error {}

interface StartHandlers {
  onLine(stream: "o" | "e", text: string): void;
  onExit(exit: LauncherExit): void;
}

/**
 * The pod agent's end of the engine container's launcher (engine-launcher.py): it listens on a Unix socket in the
 * volume both containers share, takes the first connection (the launcher, which connects before any engine code can
 * run) and no other, and asks it, one JSON line per request, to start, signal and clean up after engines.
 */
export class LauncherClient {
  private readonly pending = new Map<string, { resolve(reply: LauncherReply): void; reject(error: Error): void }>();
  private readonly starts = new Map<string, StartHandlers>();
  private nextId = 0;
  private lost: LauncherLostError | null = null;
  /** Settles when the connection has closed, with why. */
  readonly closed: Promise<LauncherLostError>;
  private markClosed!: (error: LauncherLostError) => void;

  private constructor(
    private readonly socket: Socket,
    readonly hello: LauncherHello,
    rest: string,
  ) {
    this.closed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
    let buffer = rest;
    socket.on("data", (chunk: Buffer) => {
      const lines = (buffer + chunk.toString("utf8")).split("\n");
      buffer = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") this.receive(line);
    });
    const end = (why: string) => this.lose(new LauncherLostError(why));
    socket.on("error", (error) => end(`the engine container's launcher connection failed: ${error.message}`));
    socket.on("close", () => end("the engine container's launcher is gone"));
  }

  /**
   * Listens at `path` and takes the launcher's connection; refuses to wait past `timeoutMs` (the engine container never
   * started). The socket is removed once connected, so nothing else can connect after it.
   */
  static async accept(path: string, timeoutMs: number): Promise<LauncherClient> {
    await rm(path, { force: true });
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, resolve);
    });
    // the launcher runs under another uid: it may connect, which takes write permission on the socket
    await chmod(path, 0o666);
    try {
      const socket = await new Promise<Socket>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the engine container's launcher did not connect within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        server.once("connection", (s) => {
          clearTimeout(timer);
          resolve(s);
        });
      });
      return await LauncherClient.greet(socket, timeoutMs);
    } finally {
      server.close();
      await rm(path, { force: true });
    }
  }

  private static greet(socket: Socket, timeoutMs: number): Promise<LauncherClient> {
    return new Promise((resolve, reject) => {
      let buffer = "";
      const timer = setTimeout(() => fail(new Error("the engine container's launcher said nothing")), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        socket.off("data", onData);
        socket.destroy();
        reject(error);
      };
      const onData = (chunk: Buffer) => {
        buffer += chunk.toString("utf8");
        const at = buffer.indexOf("\n");
        if (at === -1) return;
        clearTimeout(timer);
        socket.off("data", onData);
        let hello: LauncherHello;
        try {
          hello = launcherHelloSchema.parse(JSON.parse(buffer.slice(0, at)));
        } catch (error) {
          fail(new Error(`the engine container's launcher did not greet as expected: ${(error as Error).message}`));
          return;
        }
        resolve(new LauncherClient(socket, hello, buffer.slice(at + 1)));
      };
      socket.on("data", onData);
      socket.once("close", () => fail(new Error("the engine container's launcher closed before it greeted")));
    });
  }

  private receive(line: string): void {
    let message: z.infer<typeof messageSchema>;
    try {
      message = messageSchema.parse(JSON.parse(line));
    } catch {
      return;
    }
    if (message.t === "reply") {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      waiter?.resolve(message);
    } else if (message.t === "line") {
      this.starts.get(message.id)?.onLine(message.s, message.text);
    } else if (message.t === "exit") {
      const handlers = this.starts.get(message.id);
      this.starts.delete(message.id);
      handlers?.onExit({ code: message.code, signal: message.signal });
    }
  }

  private lose(error: LauncherLostError): void {
    if (this.lost) return;
    this.lost = error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    // an engine whose container is gone has ended with it
    for (const handlers of this.starts.values()) handlers.onExit({ code: null, signal: "SIGKILL" });
    this.starts.clear();
    this.markClosed(error);
  }

  get isLost(): boolean {
    return this.lost !== null;
  }

  /** Sends one request and resolves with its reply; rejects with LauncherLostError when the launcher is gone. */
  request(op: string, body: Record<string, unknown> = {}, handlers?: StartHandlers): Promise<LauncherReply> {
    if (this.lost) return Promise.reject(this.lost);
    this.nextId += 1;
    const id = `r${this.nextId}`;
    if (handlers) this.starts.set(id, handlers);
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve: (reply) => {
          if (!reply.ok) this.starts.delete(id);
          resolve(reply);
        },
        reject,
      });
      this.socket.write(`${JSON.stringify({ ...body, op, id })}\n`);
    });
  }

  /** Closing the connection tells the launcher the pod is over: it kills every engine process and exits. */
  close(): void {
    this.socket.end();
  }
}
