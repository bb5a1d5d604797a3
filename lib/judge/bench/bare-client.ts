import { connect, type Socket } from "node:net";

/** One reply as a bare socket saw it: the request's write time, each SSE event's read time and the read that ended it (ns, monotonic). */
export interface BareReply {
  seed: number;
  sentNs: bigint;
  eventsNs: bigint[];
  doneNs: bigint;
}

/**
 * The machine's floor for the fidelity benchmark: `lanes` raw TCP connections that each send requests one after
 * another for `seconds` and timestamp every socket read, with no HTTP client, SSE parser or JSON between. What
 * this sees of the server's write times is the noise of the machine (scheduling, loopback, timers), which no
 * client can measure below.
 */
export async function bareClientRun(
  url: string,
  lanes: number,
  seconds: number,
  firstSeed: number,
): Promise<BareReply[]> {
  const { hostname, port } = new URL(url);
  const until = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const replies: BareReply[] = [];
  let nextSeed = firstSeed;
  const lane = (socket: Socket) =>
    new Promise<void>((resolve, reject) => {
      let current: BareReply | null = null;
      let tail = "";
      const send = () => {
        if (process.hrtime.bigint() >= until) return void resolve();
        const body = JSON.stringify({ seed: nextSeed++ });
        current = { seed: nextSeed - 1, sentNs: process.hrtime.bigint(), eventsNs: [], doneNs: 0n };
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n` +
            `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
      };
      socket.on("data", (data: Buffer) => {
        const t = process.hrtime.bigint();
        const text = tail + data.toString("latin1");
        // a content event is counted in the read that brings its marker; a few characters stay for a split marker
        let at = 0;
        for (;;) {
          const i = text.indexOf('"content":', at);
          if (i < 0) break;
          current?.eventsNs.push(t);
          at = i + 1;
        }
        tail = text.slice(Math.max(at, text.length - 9));
        if (text.endsWith("0\r\n\r\n") && current) {
          current.doneNs = t;
          replies.push(current);
          current = null;
          tail = "";
          setImmediate(send);
        }
      });
      socket.on("error", reject);
      send();
    });
  const sockets = await Promise.all(
    Array.from(
      { length: lanes },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(Number(port), hostname, () => resolve(s));
          s.setNoDelay(true);
          s.once("error", reject);
        }),
    ),
  );
  await Promise.all(sockets.map(lane));
  for (const s of sockets) s.destroy();
  return replies;
}
