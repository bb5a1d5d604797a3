import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { serveHandler } from "../testing/serve-handler";
import { addressKey, clientAddress } from "./client-address";
import { installPeerAddress, PEER_HEADER } from "./peer-address";

const headers = (init: Record<string, string>) => new Headers(init);

/** One GET from a chosen loopback address, with the headers given; the handler's answer as text. */
function getFrom(url: string, localAddress: string, extra: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers: extra }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      res.on("end", () => resolve(body));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("clientAddress", () => {
  it("ignores a peer header a client wrote itself where no server of this process set one", () => {
    const spoofed = headers({ [PEER_HEADER]: "203.0.113.9", "x-forwarded-for": "198.51.100.1" });
    expect(clientAddress(spoofed, 0)).toBe("unknown");
  });

  it("with trusted hops counts from the right of X-Forwarded-For, as each trusted proxy appended", () => {
    const chain = headers({ "x-forwarded-for": "198.51.100.7, 203.0.113.1, 192.0.2.10" });
    expect(clientAddress(chain, 1)).toBe("192.0.2.10");
    expect(clientAddress(chain, 2)).toBe("203.0.113.1");
    expect(clientAddress(chain, 3)).toBe("198.51.100.7");
    // more hops than entries: the farthest address any proxy saw
    expect(clientAddress(chain, 9)).toBe("198.51.100.7");
    expect(clientAddress(headers({}), 1)).toBe("unknown");
  });

  it("keys IPv4 as is, an IPv4-mapped address as its IPv4, and IPv6 by its /64", () => {
    expect(addressKey("192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey("192.0.2.1:5555")).toBe("192.0.2.1");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("[2001:db8:1:2:ffff:ffff:ffff:ffff]:443")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("x".repeat(500))).toHaveLength(64);
  });

  it("on a real socket takes the peer, whatever X-Forwarded-For and a forged peer header say", async () => {
    installPeerAddress();
    const served = await serveHandler(async (request) =>
      Response.json({ zero: clientAddress(request, 0), one: clientAddress(request, 1) }),
    );
    try {
      const forged = { "x-forwarded-for": "198.51.100.1", [PEER_HEADER]: "203.0.113.66" };
      expect(JSON.parse(await getFrom(served.url, "127.0.0.2", forged))).toEqual({
        zero: "127.0.0.2",
        one: "198.51.100.1",
      });
      expect(JSON.parse(await getFrom(served.url, "127.0.0.3", {}))).toEqual({ zero: "127.0.0.3", one: "127.0.0.3" });
    } finally {
      await served.close();
    }
  });
});
