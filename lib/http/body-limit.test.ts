import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUT as putRegistration } from "@/app/api/admin/registration/route";
import { POST as register } from "@/app/api/register/route";
import { db } from "../db/client";
import { setRegistrationOpen } from "../settings/registration";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { serveHandler } from "../testing/serve-handler";
import { installPeerAddress } from "./peer-address";

let ctx: ArenaTestContext;
let served: Awaited<ReturnType<typeof serveHandler>>;

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  installPeerAddress();
  served = await serveHandler((request) => register(request, { params: Promise.resolve({}) }));
});
afterAll(async () => {
  await served.close();
  await ctx.teardown();
});

/**
 * Declares a body of `declared` bytes, sends only its first 64 KiB, and waits for the answer: a server that read
 * the body before answering would wait for the rest, which never comes.
 */
function declareHugeBody(url: string, declared: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", headers: { "content-type": "application/json", "content-length": String(declared) } },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8");
        });
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      },
    );
    req.on("error", (error) => {
      if (!(error as NodeJS.ErrnoException).code?.startsWith("ECONNRESET")) reject(error);
    });
    req.write(Buffer.alloc(64 * 1024, 0x20));
  });
}

function chunked(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += 16 * 1024;
      controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
    },
  });
}

describe("the body limit", () => {
  it("answers 413 to a 50 MB body on /api/register before reading it, though registration is closed", async () => {
    await setRegistrationOpen(false);
    const answer = await declareHugeBody(`${served.url}/api/register`, 50 * 1024 * 1024);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toEqual({
      code: "payload_too_large",
      message: "body: larger than 65,536 bytes",
    });
    // without a body that large, a closed registration says so
    const closed = await register(
      new Request("http://arena.test/api/register", { method: "POST", body: '{"name":"someone"}' }),
      { params: Promise.resolve({}) },
    );
    expect(closed.status).toBe(403);
  });

  it("cuts off a body without a declared length once it passes the limit, while registration is open", async () => {
    await setRegistrationOpen(true);
    const before = await db().account.count();
    const response = await register(
      new Request("http://arena.test/api/register", {
        method: "POST",
        body: chunked(1024 * 1024),
        duplex: "half",
      } as RequestInit),
      { params: Promise.resolve({}) },
    );
    expect(response.status).toBe(413);
    expect(await db().account.count()).toBe(before);
  });

  it("refuses an oversized body on the operators' API before looking for a session", async () => {
    const response = await putRegistration(
      new Request("http://arena.test/api/admin/registration", {
        method: "PUT",
        headers: { "content-type": "application/json", "content-length": String(10 * 1024 * 1024) },
        body: '{"open":false}',
      }),
      { params: Promise.resolve({}) },
    );
    expect(response.status).toBe(413);
  });
});
