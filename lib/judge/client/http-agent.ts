import { Agent } from "undici";

/**
 * The judge's HTTP dispatcher: no cap on connections per origin (every lane gets its own socket) and no header or
 * body timeouts, since the pass's grace deadline aborts whatever is still streaming.
 */
export function createJudgeAgent(): Agent {
  return new Agent({
    connections: null,
    pipelining: 1,
    keepAliveTimeout: 120_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}
