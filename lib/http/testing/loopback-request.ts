import { request as httpRequest } from "node:http";

export interface LoopbackAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One HTTP request from a chosen loopback address (127.0.0.0/8 is all this machine's), so that tests of what the
 * arena keys on the socket's peer can play several callers.
 */
export function loopbackRequest(
  url: string,
  options: { from: string; method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<LoopbackAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { localAddress: options.from, method: options.method ?? "GET", headers: options.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
