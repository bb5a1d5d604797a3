import { createHash } from "node:crypto";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HubTestServer, startHubTestServer } from "./hub-test-server";

const COMMIT = createHash("sha1").update("first").digest("hex");
const TOKEN = "hf_test";
const WEIGHTS = Buffer.from("safetensors bytes");
const CONFIG = '{"hidden_size": 8}';

let hub: HubTestServer;

beforeAll(async () => {
  hub = await startHubTestServer({
    token: TOKEN,
    repos: [
      {
        id: "org/public",
        commits: { [COMMIT]: { files: { "config.json": CONFIG, "model.safetensors": WEIGHTS } } },
        refs: { main: COMMIT },
      },
      { id: "org/private", private: true, commits: { [COMMIT]: { files: { "config.json": CONFIG } } } },
      { id: "org/gated", gated: "manual", commits: { [COMMIT]: { files: { "config.json": CONFIG } } } },
      { id: "org/disabled", disabled: true, commits: { [COMMIT]: { files: { "config.json": CONFIG } } } },
    ],
  });
});

afterAll(() => hub.close());

async function get(path: string, token?: string, base = hub.url) {
  const response = await request(new URL(path, base), { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

function sha256(content: Buffer | string): string {
  return createHash("sha256").update(content).digest("hex");
}

function gitBlobSha1(content: Buffer | string): string {
  const bytes = Buffer.from(content);
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

describe("the Hub test server", () => {
  it("resolves a branch and a short hash to the commit, and lists files metadata only with blobs=true", async () => {
    for (const rev of ["main", COMMIT.slice(0, 8), COMMIT]) {
      const info = JSON.parse((await get(`/api/models/org/public/revision/${rev}`)).text);
      expect(info.sha).toBe(COMMIT);
      expect(info.siblings).toEqual([{ rfilename: "config.json" }, { rfilename: "model.safetensors" }]);
    }
    const info = JSON.parse((await get(`/api/models/org/public/revision/main?blobs=true`)).text);
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(WEIGHTS)}\nsize ${WEIGHTS.length}\n`;
    expect(info).toMatchObject({ id: "org/public", modelId: "org/public", sha: COMMIT, private: false, gated: false });
    expect(info.siblings).toEqual([
      { rfilename: "config.json", blobId: gitBlobSha1(CONFIG), size: CONFIG.length },
      {
        rfilename: "model.safetensors",
        blobId: gitBlobSha1(pointer),
        size: WEIGHTS.length,
        lfs: { sha256: sha256(WEIGHTS), size: WEIGHTS.length, pointerSize: pointer.length },
      },
    ]);
  });

  it("answers a file kept in git with a relative 307 to resolve-cache, and an LFS file with a 302 to the CDN", async () => {
    const config = await get("/org/public/resolve/main/config.json");
    expect(config.status).toBe(307);
    expect(config.headers).toMatchObject({ "x-repo-commit": COMMIT, "x-linked-etag": `"${gitBlobSha1(CONFIG)}"` });
    expect(config.headers.location).toMatch(
      new RegExp(`^/api/resolve-cache/models/org/public/${COMMIT}/config\\.json\\?`),
    );
    const cached = await get(config.headers.location as string);
    expect([cached.status, cached.text]).toEqual([200, CONFIG]);

    const weights = await get("/org/public/resolve/main/model.safetensors");
    expect(weights.status).toBe(302);
    expect(weights.headers).toMatchObject({
      "x-repo-commit": COMMIT,
      "x-linked-etag": `"${sha256(WEIGHTS)}"`,
      "x-linked-size": String(WEIGHTS.length),
    });
    const location = weights.headers.location as string;
    expect(location.startsWith(`${hub.cdnUrl}/`)).toBe(true);
    expect(new URL(location).searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(await get(location)).toMatchObject({ status: 200, text: WEIGHTS.toString() });
  });

  it("has its CDN refuse a request carrying the Hub's token, and one whose signature was tampered with", async () => {
    const location = (await get("/org/public/resolve/main/model.safetensors")).headers.location as string;
    const leaked = await get(location, TOKEN);
    expect(leaked.status).toBe(400);
    expect(leaked.text).toContain("<Code>InvalidArgument</Code>");
    const tampered = new URL(location);
    tampered.searchParams.set("X-Amz-Signature", "0".repeat(64));
    expect((await get(tampered.toString())).status).toBe(403);
    expect(hub.requests.filter((r) => r.server === "cdn").map((r) => [r.authorization, r.status])).toContainEqual([
      `Bearer ${TOKEN}`,
      400,
    ]);
  });

  it("refuses as the Hub does, with X-Error-Code, X-Error-Message and a JSON error", async () => {
    const cases: [string, string | undefined, number, string | undefined, string][] = [
      ["/api/models/org/nothing/revision/main", undefined, 401, "RepoNotFound", "Invalid username or password."],
      ["/api/models/org/private/revision/main", undefined, 401, "RepoNotFound", "Invalid username or password."],
      ["/api/models/org/nothing/revision/main", TOKEN, 404, "RepoNotFound", "Repository not found"],
      [
        "/api/models/org/public/revision/main",
        "hf_other",
        401,
        undefined,
        "Invalid credentials in Authorization header",
      ],
      ["/api/models/org/public/revision/nope", undefined, 404, "RevisionNotFound", "Invalid rev id: nope"],
      ["/org/public/resolve/main/nothing.json", undefined, 404, "EntryNotFound", "Entry not found"],
      [
        "/org/gated/resolve/main/config.json",
        undefined,
        401,
        "GatedRepo",
        "Access to model org/gated is restricted. You must have access to it and be authenticated to access it. Please log in.",
      ],
      [
        "/org/gated/resolve/main/config.json",
        TOKEN,
        403,
        "GatedRepo",
        "Access to model org/gated is restricted and you are not in the authorized list. Visit https://huggingface.co/org/gated to ask for access.",
      ],
      ["/org/disabled/resolve/main/config.json", TOKEN, 403, undefined, "Access to this resource is disabled."],
    ];
    for (const [path, token, status, code, message] of cases) {
      const answer = await get(path, token);
      expect([path, answer.status, answer.headers["x-error-code"], answer.headers["x-error-message"]]).toEqual([
        path,
        status,
        code,
        message,
      ]);
      expect(JSON.parse(answer.text)).toEqual({ error: message });
    }
    // A gated repository's metadata stays visible; a private one's is the token holder's.
    expect(JSON.parse((await get(`/api/models/org/gated/revision/${COMMIT}`)).text).gated).toBe("manual");
    expect(JSON.parse((await get(`/api/models/org/private/revision/${COMMIT}`, TOKEN)).text).sha).toBe(COMMIT);
  });
});
