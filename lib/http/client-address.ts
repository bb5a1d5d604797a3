import { isIPv4, isIPv6 } from "node:net";
import { env } from "../env";
import { peerAddress } from "./peer-address";

/**
 * The caller's address, as far as the arena can trust it. With no trusted proxy (TRUSTED_PROXY_HOPS=0) it is the
 * socket's peer and X-Forwarded-For is ignored: the caller writes that header. With n trusted proxies, each appended
 * the address it saw, so the n-th entry from the right is what the outermost trusted proxy saw (as Express's
 * "trust proxy" counts hops). Without a peer (a handler called outside an HTTP server) it is "unknown": one bucket.
 */
export function clientAddress(source: Request | Headers, hops: number = env().TRUSTED_PROXY_HOPS): string {
  const headers = source instanceof Headers ? source : source.headers;
  const peer = peerAddress(headers);
  if (hops === 0) return peer ? addressKey(peer) : "unknown";
  const forwarded = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  const chain = [peer, ...forwarded.reverse()];
  for (let i = Math.min(hops, chain.length - 1); i >= 0; i--) {
    const address = chain[i];
    if (address) return addressKey(address);
  }
  return "unknown";
}

/**
 * The key an address is limited under: IPv4 as is (an IPv4-mapped IPv6 address as its IPv4), IPv6 by its /64, the
 * block one subscriber is handed, so that rotating through it gains nothing; anything else (a proxy's garbage) capped.
 */
export function addressKey(raw: string): string {
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1]!;
  if (isIPv4(address)) return address;
  if (isIPv6(address.split("%")[0]!)) return `${expandIPv6(address.split("%")[0]!).slice(0, 4).join(":")}::/64`;
  return address.slice(0, 64);
}

/** The eight groups of an IPv6 address, "::" filled in (an embedded IPv4 tail as two groups). */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((group) => group.replace(/^0+(?=.)/, ""));
}
