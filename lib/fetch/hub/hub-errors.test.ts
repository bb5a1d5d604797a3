import { describe, expect, it } from "vitest";
import { FetchError } from "../fetch-errors";
import { hubAnswerError, networkError, retryAfterMs, TransientHubError } from "./hub-errors";

const subject = { repository: "org/spec", revision: "a".repeat(40), path: "model.safetensors" };

describe("hubAnswerError", () => {
  it("reads the answer in hf_raise_for_status's order", () => {
    const cases: [number, Record<string, string>, string, "submission" | "arena" | "retry", RegExp][] = [
      [404, { "x-error-code": "RevisionNotFound" }, "", "submission", /org\/spec has no commit a{40}/],
      [
        404,
        { "x-error-code": "EntryNotFound" },
        "",
        "submission",
        /file "model\.safetensors" of speculator org\/spec@a{40} is listed/,
      ],
      [401, { "x-error-code": "GatedRepo" }, "", "submission", /is gated on the Hub/],
      [403, { "x-error-message": "Access to this resource is disabled." }, "", "submission", /is disabled on the Hub/],
      [
        401,
        { "x-error-code": "RepoNotFound" },
        '{"error":"Invalid username or password."}',
        "submission",
        /not found on the Hub.*Invalid username/,
      ],
      [401, {}, "", "submission", /not found on the Hub, or is private/],
      [401, {}, '{"error":"Invalid credentials in Authorization header"}', "arena", /refused the arena's HUB_TOKEN/],
      [503, {}, "<html>busy</html>", "retry", /answered HTTP 503 for file/],
      [429, { "retry-after": "3" }, "", "retry", /HTTP 429/],
      [404, {}, "<html>no</html>", "arena", /HTTP 404 for .* does not understand/],
      [403, {}, "", "arena", /does not understand/],
    ];
    for (const [status, headers, body, kind, message] of cases) {
      const error = hubAnswerError(status, headers, body, subject);
      if (kind === "retry") expect(error).toBeInstanceOf(TransientHubError);
      else expect([error instanceof FetchError, (error as FetchError).fault]).toEqual([true, kind]);
      expect(error.message).toMatch(message);
    }
  });

  it("waits as the Hub says: Retry-After in seconds, or a spent RateLimit's reset on a 429", () => {
    expect(retryAfterMs(503, { "retry-after": "2" })).toBe(2000);
    expect(retryAfterMs(503, { "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" })).toBeUndefined();
    expect(retryAfterMs(429, { ratelimit: '"resolvers";r=0;t=42' })).toBe(42_000);
    expect(retryAfterMs(429, { ratelimit: '"resolvers";r=12;t=42' })).toBeUndefined();
    expect(retryAfterMs(200, { ratelimit: '"api";r=0;t=42' })).toBeUndefined();
  });
});

describe("networkError", () => {
  it("retries transport failures only", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(networkError(refused, subject)?.message).toMatch(/could not be reached for file "model\.safetensors"/);
    expect(networkError({ code: "UND_ERR_BODY_TIMEOUT" }, subject)?.message).toMatch(/stalled mid-body/);
    expect(networkError(new Error("x", { cause: { code: "ECONNRESET" } }), subject)?.message).toMatch(
      /connection dropped/,
    );
    expect(networkError(new FetchError("bad sha", "submission"), subject)).toBeUndefined();
    expect(networkError(Object.assign(new Error("disk full"), { code: "ENOSPC" }), subject)).toBeUndefined();
  });
});
