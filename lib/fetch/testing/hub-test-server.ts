import { createHash, createHmac, randomBytes } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for the Hugging Face Hub over real sockets, speaking what huggingface_hub reads
 * (hf_api.py `model_info`, file_download.py `hf_hub_url`/`get_hf_file_metadata`, utils/_http.py
 * `hf_raise_for_status`) and what the live Hub answers:
 *
 * - `GET /api/models/{repo}/revision/{rev}[?blobs=true]`: the revision info. `rev` is a branch or tag of
 *   `refs`, a full commit, or an unambiguous prefix of one (7+ hex). Without `blobs` the siblings carry only
 *   `rfilename`; with it, `size`, `blobId` (git blob sha1) and, for LFS files, `lfs: {sha256, size, pointerSize}`.
 * - `GET|HEAD /{repo}/resolve/{rev}/{path}`: a file kept in git answers a 307 to a relative
 *   `/api/resolve-cache/...` on the same origin, which serves it; an LFS file answers a 302 to the CDN
 *   (the second server) with a signed query. Both carry `X-Repo-Commit`, `X-Linked-Etag`, `X-Linked-Size`.
 * - The CDN serves a blob only with a valid signature, and refuses a request that also carries an
 *   `Authorization` header as S3 does (400 InvalidArgument): a token leaked past the Hub fails the download.
 * - Errors as the Hub sends them: `X-Error-Code`/`X-Error-Message` and a JSON `{"error": ...}` body. A missing
 *   or private repository without the token: 401 RepoNotFound (404 with a valid token). A gated one: metadata
 *   visible, content 401 GatedRepo anonymously, 403 GatedRepo with a token not granted access. A disabled one:
 *   403 "Access to this resource is disabled.". An unknown token: 401 "Invalid credentials in Authorization
 *   header". 404 RevisionNotFound, 404 EntryNotFound. A renamed repository: a relative 307 to its new name.
 */
export interface HubTestRepo {
  /** "org/name". */
  id: string;
  private?: boolean;
  gated?: false | "auto" | "manual";
  /** Whether the server's token has been granted access to a gated repository. */
  granted?: boolean;
  disabled?: boolean;
  /** Former names: requests under them get a relative redirect to `id`. */
  renamedFrom?: string[];
  commits: Record<string, { files: Record<string, Buffer | string> }>;
  /** Branches and tags. */
  refs?: Record<string, string>;
}

/** What goes wrong, and for how many of the requests it meets (every one when `times` is absent). */
export type HubFault =
  /** Answered at the Hub's hop (the listing, or `resolve`), with the Hub's 5xx page or a 429. */
  | { kind: "status"; status: number; retryAfterSeconds?: number }
  /** Where the bytes are served: nothing for `ms` before the headers, or halfway through the body. */
  | { kind: "stall"; at: "headers" | "body"; ms: number }
  /** Where the bytes are served: the socket destroyed halfway through the body. */
  | { kind: "drop" }
  /** Where the bytes are served: one byte changed, so the listed sha256 or blob id no longer matches. */
  | { kind: "corrupt" }
  /** In the listing: this size, whatever the bytes are. */
  | { kind: "listed-size"; size: number };

export interface HubFaultRule {
  repo: string;
  /** The file; absent: the repository's revision listing. */
  path?: string;
  times?: number;
  fault: HubFault;
}

export interface HubTestConfig {
  repos: HubTestRepo[];
  /** The only token the Hub knows; it reads every private repository. */
  token?: string;
  faults?: HubFaultRule[];
}

export interface HubRequestRecord {
  server: "hub" | "cdn";
  method: string;
  /** As sent: path and query, still URL-encoded. */
  url: string;
  authorization?: string;
  status?: number;
}

export interface HubTestServer {
  url: string;
  cdnUrl: string;
  requests: HubRequestRecord[];
  close(): Promise<void>;
}

interface StoredFile {
  path: string;
  bytes: Buffer;
  lfs: boolean;
  sha256: string;
  blobId: string;
  pointerSize: number;
}

/** The extensions the Hub's default `.gitattributes` sends to LFS, of those a model repository holds. */
const LFS_EXTENSIONS = /\.(safetensors|bin|pt|pth|ckpt|h5|onnx|msgpack|gguf|npy|npz|pkl|pickle|zip|tar|gz)$/;
/** The Hub refuses files over 10 MB outside LFS. */
const LFS_THRESHOLD = 10 * 1024 * 1024;

function gitBlobSha1(bytes: Buffer): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

function storeFile(path: string, content: Buffer | string): StoredFile {
  const bytes = Buffer.from(content);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const lfs = LFS_EXTENSIONS.test(path) || bytes.length > LFS_THRESHOLD;
  // The pointer git stores in the file's place: its blob id is what the listing's `blobId` gives for LFS files.
  const pointer = Buffer.from(
    `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${bytes.length}\n`,
  );
  return { path, bytes, lfs, sha256, blobId: gitBlobSha1(lfs ? pointer : bytes), pointerSize: pointer.length };
}

type Auth = "none" | "valid" | "invalid";
type Refusal = { status: number; code?: string; message: string };

function hubError(res: ServerResponse, { status, code, message }: Refusal, headers: OutgoingHttpHeaders = {}) {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, {
    ...headers,
    ...(code ? { "x-error-code": code } : {}),
    "x-error-message": message,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function s3Error(res: ServerResponse, status: number, code: string, message: string) {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function decodeSegments(path: string): string {
  return path.split("/").map(decodeURIComponent).join("/");
}

function encodeSegments(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startHubTestServer(config: HubTestConfig): Promise<HubTestServer> {
  const requests: HubRequestRecord[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const secret = randomBytes(16);
  const rules = (config.faults ?? []).map((rule) => ({ ...rule, left: rule.times ?? Number.POSITIVE_INFINITY }));
  const repos = new Map<string, { repo: HubTestRepo; commits: Map<string, Map<string, StoredFile>> }>();
  const renamed = new Map<string, string>();
  /** CDN objects by an opaque key, as the CDN knows them. */
  const objects = new Map<string, { repo: string; file: StoredFile }>();
  for (const repo of config.repos) {
    const commits = new Map<string, Map<string, StoredFile>>();
    for (const [sha, { files }] of Object.entries(repo.commits)) {
      if (!/^[0-9a-f]{40}$/.test(sha)) throw new Error(`hub test server: commit "${sha}" is not 40 hex characters`);
      commits.set(sha, new Map(Object.entries(files).map(([path, content]) => [path, storeFile(path, content)])));
    }
    repos.set(repo.id, { repo, commits });
    for (const old of repo.renamedFrom ?? []) renamed.set(old, repo.id);
  }

  function takeFault(repo: string, path: string | undefined, kinds: HubFault["kind"][]): HubFault | undefined {
    const rule = rules.find((r) => r.repo === repo && r.path === path && kinds.includes(r.fault.kind) && r.left > 0);
    if (!rule) return undefined;
    rule.left -= 1;
    return rule.fault;
  }

  function listedSize(repo: string, file: StoredFile): number {
    const rule = rules.find((r) => r.repo === repo && r.path === file.path && r.fault.kind === "listed-size");
    return rule?.fault.kind === "listed-size" ? rule.fault.size : file.bytes.length;
  }

  function later(res: ServerResponse, ms: number, then: () => void) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) then();
    }, ms);
    timers.add(timer);
  }

  /** Serves bytes where they are served (the CDN, `resolve-cache`, a listing), misbehaving as the fault says. */
  function serveBytes(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    headers: OutgoingHttpHeaders,
    fault: HubFault | undefined,
  ) {
    if (fault?.kind === "stall" && fault.at === "headers") {
      return later(res, fault.ms, () => serveBytes(req, res, body, headers, undefined));
    }
    let bytes = body;
    if (fault?.kind === "corrupt" && bytes.length > 0) {
      bytes = Buffer.from(body);
      bytes[bytes.length >> 1]! ^= 0xff;
    }
    res.writeHead(200, { ...headers, "content-length": bytes.length });
    if (req.method === "HEAD") return void res.end();
    const half = bytes.subarray(0, bytes.length >> 1);
    if (fault?.kind === "drop") return void res.write(half, () => res.destroy());
    if (fault?.kind === "stall" && fault.at === "body") {
      res.write(half);
      return later(res, fault.ms, () => res.end(bytes.subarray(half.length)));
    }
    res.end(bytes);
  }

  function authOf(req: IncomingMessage): Auth {
    const header = req.headers.authorization;
    if (!header) return "none";
    return config.token !== undefined && header === `Bearer ${config.token}` ? "valid" : "invalid";
  }

  /** The repository as this caller may see it: its metadata, or with `content` its files. */
  function access(
    id: string,
    auth: Auth,
    content: boolean,
  ): { refusal: Refusal } | { entry: NonNullable<ReturnType<typeof repos.get>> } {
    const entry = repos.get(id);
    if (!entry || (entry.repo.private && auth !== "valid")) {
      return auth === "valid"
        ? { refusal: { status: 404, code: "RepoNotFound", message: "Repository not found" } }
        : { refusal: { status: 401, code: "RepoNotFound", message: "Invalid username or password." } };
    }
    if (entry.repo.disabled) return { refusal: { status: 403, message: "Access to this resource is disabled." } };
    if (content && entry.repo.gated && !(auth === "valid" && entry.repo.granted)) {
      return auth === "valid"
        ? {
            refusal: {
              status: 403,
              code: "GatedRepo",
              message: `Access to model ${id} is restricted and you are not in the authorized list. Visit https://huggingface.co/${id} to ask for access.`,
            },
          }
        : {
            refusal: {
              status: 401,
              code: "GatedRepo",
              message: `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
            },
          };
    }
    return { entry };
  }

  function resolveRevision(
    commits: Map<string, unknown>,
    refs: Record<string, string>,
    rev: string,
  ): string | undefined {
    if (Object.hasOwn(refs, rev)) return refs[rev];
    if (commits.has(rev)) return rev;
    if (!/^[0-9a-f]{7,39}$/.test(rev)) return undefined;
    const matches = [...commits.keys()].filter((sha) => sha.startsWith(rev));
    return matches.length === 1 ? matches[0] : undefined;
  }

  function revisionInfo(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    rev: string,
    blobs: boolean,
    auth: Auth,
  ) {
    const seen = access(id, auth, false);
    if ("refusal" in seen) return hubError(res, seen.refusal);
    const { repo, commits } = seen.entry;
    const status = takeFault(id, undefined, ["status"]);
    if (status?.kind === "status") return hubStatus(res, status);
    const sha = resolveRevision(commits, repo.refs ?? {}, rev);
    if (!sha) return hubError(res, { status: 404, code: "RevisionNotFound", message: `Invalid rev id: ${rev}` });
    const siblings = [...commits.get(sha)!.values()].map((file) => {
      if (!blobs) return { rfilename: file.path };
      const size = listedSize(id, file);
      return {
        rfilename: file.path,
        blobId: file.blobId,
        size,
        ...(file.lfs ? { lfs: { sha256: file.sha256, size, pointerSize: file.pointerSize } } : {}),
      };
    });
    const [author] = id.split("/");
    const body = Buffer.from(
      JSON.stringify({
        _id: createHash("sha1").update(id).digest("hex").slice(0, 24),
        id,
        modelId: id,
        author,
        sha,
        lastModified: "2026-01-01T00:00:00.000Z",
        private: Boolean(repo.private),
        disabled: Boolean(repo.disabled),
        gated: repo.gated ?? false,
        tags: [],
        downloads: 0,
        likes: 0,
        siblings,
        spaces: [],
        createdAt: "2026-01-01T00:00:00.000Z",
        usedStorage: siblings.reduce((n, s) => n + ("size" in s ? s.size : 0), 0),
      }),
    );
    serveBytes(
      req,
      res,
      body,
      { "content-type": "application/json; charset=utf-8" },
      takeFault(id, undefined, ["stall", "drop"]),
    );
  }

  function hubStatus(res: ServerResponse, fault: Extract<HubFault, { kind: "status" }>) {
    const body =
      fault.status === 429
        ? JSON.stringify({ error: "You have exceeded our hourly quotas for action: resolve" })
        : "Internal Error - We're working hard to fix this as soon as possible!";
    res.writeHead(fault.status, {
      "content-type": fault.status === 429 ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
      ...(fault.retryAfterSeconds !== undefined ? { "retry-after": String(fault.retryAfterSeconds) } : {}),
      ...(fault.status === 429
        ? {
            ratelimit: `"resolvers";r=0;t=${fault.retryAfterSeconds ?? 1}`,
            "ratelimit-policy": '"fixed window";"resolvers";q=3000;w=300',
          }
        : {}),
    });
    res.end(body);
  }

  function resolve(req: IncomingMessage, res: ServerResponse, id: string, rev: string, path: string, auth: Auth) {
    const seen = access(id, auth, true);
    if ("refusal" in seen) return hubError(res, seen.refusal);
    const { repo, commits } = seen.entry;
    const sha = resolveRevision(commits, repo.refs ?? {}, rev);
    if (!sha) return hubError(res, { status: 404, code: "RevisionNotFound", message: `Invalid rev id: ${rev}` });
    const file = commits.get(sha)!.get(path);
    if (!file) {
      return hubError(
        res,
        { status: 404, code: "EntryNotFound", message: "Entry not found" },
        { "x-repo-commit": sha },
      );
    }
    const status = takeFault(id, path, ["status"]);
    if (status?.kind === "status") return hubStatus(res, status);
    const etag = `"${file.lfs ? file.sha256 : file.blobId}"`;
    const common = { "x-repo-commit": sha, etag, "x-linked-etag": etag, "x-linked-size": String(file.bytes.length) };
    let location: string;
    if (file.lfs) {
      const key = createHash("sha256").update(`${id}\0${sha}\0${path}`).digest("hex").slice(0, 24);
      objects.set(key, { repo: id, file });
      location = `${cdnUrl}${signedPath(`/xet-bridge-us/${key}/${file.sha256}`, path)}`;
    } else {
      const query = `${encodeURIComponent(`/${id}/resolve/${rev}/${path}`)}&etag=${encodeURIComponent(etag)}`;
      location = `/api/resolve-cache/models/${id}/${sha}/${encodeSegments(path)}?${query}`;
    }
    const body = `${file.lfs ? "Found" : "Temporary Redirect"}. Redirecting to ${location}`;
    res.writeHead(file.lfs ? 302 : 307, { ...common, location, "content-type": "text/plain; charset=utf-8" });
    res.end(req.method === "HEAD" ? undefined : body);
  }

  function resolveCache(req: IncomingMessage, res: ServerResponse, id: string, sha: string, path: string, auth: Auth) {
    const seen = access(id, auth, true);
    if ("refusal" in seen) return hubError(res, seen.refusal);
    const file = seen.entry.commits.get(sha)?.get(path);
    if (!file || file.lfs) return hubError(res, { status: 404, code: "EntryNotFound", message: "Entry not found" });
    const type = path.endsWith(".json") ? "application/json" : "text/plain; charset=utf-8";
    const headers = { "x-repo-commit": sha, etag: `"${file.blobId}"`, "content-type": type };
    serveBytes(req, res, file.bytes, headers, takeFault(id, path, ["stall", "drop", "corrupt"]));
  }

  function signature(path: string, date: string, expires: string): string {
    return createHmac("sha256", secret).update(`${path}\n${date}\n${expires}`).digest("hex");
  }

  function signedPath(path: string, filename: string): string {
    const date = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
    const query = new URLSearchParams({
      "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
      "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD",
      "X-Amz-Credential": `AKIATESTHUBCDN/${date.slice(0, 8)}/us-east-1/s3/aws4_request`,
      "X-Amz-Date": date,
      "X-Amz-Expires": "3600",
      "X-Amz-Signature": signature(path, date, "3600"),
      "X-Amz-SignedHeaders": "host",
      "response-content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(filename.split("/").pop()!)};`,
      "x-id": "GetObject",
    });
    return `${path}?${query}`;
  }

  function serveCdn(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://cdn");
    const match = /^\/xet-bridge-us\/([0-9a-f]{24})\/([0-9a-f]{64})$/.exec(url.pathname);
    const object = match ? objects.get(match[1]!) : undefined;
    if (req.headers.authorization) {
      return s3Error(
        res,
        400,
        "InvalidArgument",
        "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified",
      );
    }
    const date = url.searchParams.get("X-Amz-Date") ?? "";
    const expires = url.searchParams.get("X-Amz-Expires") ?? "";
    if (
      !object ||
      object.file.sha256 !== match![2] ||
      url.searchParams.get("X-Amz-Signature") !== signature(url.pathname, date, expires)
    ) {
      return s3Error(res, 403, "AccessDenied", "Access Denied");
    }
    const headers = {
      "content-type": "application/octet-stream",
      etag: `"${object.file.sha256}"`,
      "content-disposition": url.searchParams.get("response-content-disposition") ?? "inline",
      "accept-ranges": "bytes",
    };
    serveBytes(
      req,
      res,
      object.file.bytes,
      headers,
      takeFault(object.repo, object.file.path, ["stall", "drop", "corrupt"]),
    );
  }

  function serveHub(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://hub");
    if (req.method !== "GET" && req.method !== "HEAD")
      return hubError(res, { status: 405, message: "Method not allowed" });
    const auth = authOf(req);
    if (auth === "invalid")
      return hubError(res, { status: 401, message: "Invalid credentials in Authorization header" });
    const forward = (oldId: string, newId: string, rest: string) => {
      res.writeHead(307, { location: `${rest.replace(`/${oldId}/`, `/${newId}/`)}${url.search}` });
      res.end();
    };
    let m = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/.exec(url.pathname);
    if (m) {
      const id = m[1]!;
      if (renamed.has(id)) return forward(id, renamed.get(id)!, url.pathname);
      return revisionInfo(req, res, id, decodeURIComponent(m[2]!), url.searchParams.get("blobs") === "true", auth);
    }
    m = /^\/api\/resolve-cache\/models\/([^/]+\/[^/]+)\/([0-9a-f]{40})\/(.+)$/.exec(url.pathname);
    if (m) return resolveCache(req, res, m[1]!, m[2]!, decodeSegments(m[3]!), auth);
    m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (m && !url.pathname.startsWith("/api/")) {
      const id = m[1]!;
      if (renamed.has(id)) return forward(id, renamed.get(id)!, url.pathname);
      return resolve(req, res, id, decodeURIComponent(m[2]!), decodeSegments(m[3]!), auth);
    }
    hubError(res, { status: 404, message: "Sorry, we can't find the page you are looking for." });
  }

  function recorded(server: "hub" | "cdn", handle: (req: IncomingMessage, res: ServerResponse) => void) {
    return (req: IncomingMessage, res: ServerResponse) => {
      const record: HubRequestRecord = { server, method: req.method ?? "GET", url: req.url ?? "/" };
      if (req.headers.authorization) record.authorization = req.headers.authorization;
      requests.push(record);
      res.on("close", () => {
        record.status = res.statusCode;
      });
      handle(req, res);
    };
  }

  const cdn = createServer(recorded("cdn", serveCdn));
  const hub = createServer(recorded("hub", serveHub));
  const cdnUrl = await listen(cdn);
  const url = await listen(hub);
  const stop = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    url,
    cdnUrl,
    requests,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all([stop(hub), stop(cdn)]);
    },
  };
}
