import { gunzipSync } from "node:zlib";
import type { RenderedPage } from "./rendered-pages";

/** A final evaluation's page as kept (kept-pages.ts): its headers, and its body as stored, gzipped. */
export interface KeptPage {
  headers: [string, string][];
  gzipped: Uint8Array;
}

/** The page a kept one is served as: its body as rendered (the proxy's answer is compressed by Next, not here). */
export function unpackKeptPage(kept: KeptPage): RenderedPage {
  return { status: 200, headers: kept.headers, body: new Uint8Array(gunzipSync(kept.gzipped)) };
}
