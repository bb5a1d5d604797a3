/**
 * Loaded into the web server by `timed-server.ts` (`node --require`, built to CommonJS with the log's path defined):
 * records each HTTP answer's server time, from the request's headers parsed (the `request` event) to its last byte
 * handed to the socket (`finish`), as `<url>\t<ms>` lines that `board-bench.ts --server-times` reads. Lines are kept
 * in memory and appended every 200 ms, so the writes never fall inside an answer's span.
 */
import { appendFileSync } from "node:fs";
import http from "node:http";

declare const SERVER_TIMES_LOG: string;

let pending: string[] = [];
setInterval(() => {
  if (pending.length === 0) return;
  appendFileSync(SERVER_TIMES_LOG, pending.join(""));
  pending = [];
}, 200).unref();

const emit = http.Server.prototype.emit as (this: http.Server, event: string, ...rest: unknown[]) => boolean;
http.Server.prototype.emit = function timedEmit(this: http.Server, event: string, ...rest: unknown[]): boolean {
  if (event === "request") {
    const [request, response] = rest as [http.IncomingMessage, http.ServerResponse];
    const started = performance.now();
    response.once("finish", () => {
      pending.push(`${request.url}\t${(performance.now() - started).toFixed(3)}\n`);
    });
  }
  return emit.call(this, event, ...rest);
} as typeof http.Server.prototype.emit;
