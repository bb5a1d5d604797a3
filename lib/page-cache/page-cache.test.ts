import { describe, expect, it } from "vitest";
import { pageTarget, targetPath } from "./page-target";
import { type RenderedPage, RenderedPages } from "./rendered-pages";
import {
  CACHE_HEADER,
  cacheableTarget,
  type PageCacheDeps,
  type PageRequest,
  RENDER_HEADER,
  servePage,
  TIMING_HEADER,
} from "./serve-page";

const url = (path: string) => new URL(path, "http://arena.test");
const html = (text: string): RenderedPage => ({
  status: 200,
  headers: [["content-type", "text/html; charset=utf-8"]],
  body: new TextEncoder().encode(text),
});
const request = (path: string, init: { method?: string; headers?: Record<string, string>; cookies?: string[] } = {}) =>
  ({
    method: init.method ?? "GET",
    url: url(path),
    headers: new Headers(init.headers),
    cookieNames: init.cookies ?? [],
  }) satisfies PageRequest;

describe("the pages the cache keeps", () => {
  it("reads the home page, a task page by its page number, and an evaluation page; nothing else", () => {
    expect(pageTarget(url("/"))).toEqual({ kind: "home" });
    expect(pageTarget(url("/tasks/qwen3-8b"))).toEqual({ kind: "task", task: "qwen3-8b", page: 1 });
    expect(pageTarget(url("/tasks/qwen3-8b/?page=3&utm=x"))).toEqual({ kind: "task", task: "qwen3-8b", page: 3 });
    expect(pageTarget(url("/tasks/qwen3-8b?page=0"))).toEqual({ kind: "task", task: "qwen3-8b", page: 1 });
    expect(pageTarget(url("/tasks/qwen3-8b?page=abc"))).toEqual({ kind: "task", task: "qwen3-8b", page: 1 });
    expect(pageTarget(url("/tasks/nope"))).toBeNull();
    expect(pageTarget(url("/evaluations/cm123abc"))).toEqual({ kind: "evaluation", id: "cm123abc" });
    expect(pageTarget(url("/evaluations/has%20space"))).toBeNull();
    expect(pageTarget(url("/evaluations"))).toBeNull();
    expect(pageTarget(url("/admin"))).toBeNull();
    expect(pageTarget(url("/guide"))).toBeNull();
  });

  it("keys each page by one address, whatever else the address carried", () => {
    const key = (p: string) => targetPath(pageTarget(url(p))!);
    expect(key("/tasks/qwen3-8b?page=1&x=2")).toBe("/tasks/qwen3-8b");
    expect(key("/tasks/qwen3-8b?page=2&x=2")).toBe("/tasks/qwen3-8b?page=2");
    expect(key("/?utm_source=feed")).toBe("/");
  });

  it("serves from the cache only plain reads by readers who are not signed in", () => {
    expect(cacheableTarget(request("/"))).toEqual({ kind: "home" });
    expect(cacheableTarget(request("/", { method: "HEAD" }))).toEqual({ kind: "home" });
    expect(cacheableTarget(request("/", { method: "POST" }))).toBeNull();
    expect(cacheableTarget(request("/", { cookies: ["next-auth.session-token"] }))).toBeNull();
    expect(cacheableTarget(request("/", { cookies: ["__Secure-next-auth.session-token.0"] }))).toBeNull();
    expect(cacheableTarget(request("/", { cookies: ["next-auth.csrf-token"] }))).toEqual({ kind: "home" });
    expect(cacheableTarget(request("/", { headers: { rsc: "1" } }))).toBeNull();
    expect(cacheableTarget(request("/?_rsc=abc"))).toBeNull();
    expect(cacheableTarget(request("/", { headers: { "next-action": "x" } }))).toBeNull();
    expect(cacheableTarget(request("/", { headers: { [RENDER_HEADER]: "anything" } }))).toBeNull();
  });
});

describe("the rendered pages kept", () => {
  it("holds one version per key, within its byte budget, the least recently served going first", async () => {
    const pages = new RenderedPages(25);
    await pages.fill("/a", "v1", async () => html("aaaaaaaaaa"));
    await pages.fill("/b", "v1", async () => html("bbbbbbbbbb"));
    expect(pages.get("/a", "v1")).not.toBeNull();
    expect(pages.get("/a", "v2")).toBeNull();
    await pages.fill("/c", "v1", async () => html("cccccccccc"));
    // /b was served least recently
    expect(pages.get("/b", "v1")).toBeNull();
    expect(pages.get("/a", "v1")).not.toBeNull();
    expect(pages.heldBytes).toBe(20);
    await pages.fill("/a", "v2", async () => html("AAAAA"));
    expect(pages.get("/a", "v1")).toBeNull();
    expect(pages.heldBytes).toBe(15);
    await pages.fill("/big", "v1", async () => html("x".repeat(26)));
    expect(pages.get("/big", "v1")).toBeNull();
  });

  it("renders once for readers who miss together, and keeps neither a failure nor a page not to keep", async () => {
    const pages = new RenderedPages();
    let renders = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const render = async () => {
      renders++;
      await gate;
      return html("page");
    };
    const all = Promise.all(Array.from({ length: 50 }, () => pages.fill("/", "v1", render)));
    release();
    expect((await all).every((p) => p !== null)).toBe(true);
    expect(renders).toBe(1);
    await expect(pages.fill("/x", "v1", async () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(pages.get("/x", "v1")).toBeNull();
    expect(await pages.fill("/y", "v1", async () => null)).toBeNull();
    expect(pages.size).toBe(1);
  });
});

describe("a public page answered through the cache", () => {
  function deps(versions: Record<string, string | null>) {
    const rendered: string[] = [];
    let current = versions;
    const d: PageCacheDeps & { rendered: string[]; set(v: Record<string, string | null>): void } = {
      pages: new RenderedPages(),
      rendered,
      set(v) {
        current = v;
      },
      version: async (t) => current[targetPath(t)] ?? null,
      render: async (path) => {
        rendered.push(path);
        return html(`${path} at ${current[path]}`);
      },
    };
    return d;
  }
  const text = async (r: Response | null) => (r ? [r.headers.get(CACHE_HEADER), await r.text()] : null);

  it("renders once per version, serves it until the version moves, and leaves the rest to the app", async () => {
    const d = deps({ "/": "s1", "/tasks/qwen3-8b?page=2": "s1", "/evaluations/running1": null });
    expect(await text(await servePage(request("/"), d))).toEqual(["miss", "/ at s1"]);
    expect(await text(await servePage(request("/?utm=1"), d))).toEqual(["hit", "/ at s1"]);
    expect(await text(await servePage(request("/tasks/qwen3-8b?page=2"), d))).toEqual([
      "miss",
      "/tasks/qwen3-8b?page=2 at s1",
    ]);
    expect(d.rendered).toEqual(["/", "/tasks/qwen3-8b?page=2"]);
    // a new score moves the version: the next reader gets a new render
    d.set({ "/": "s2" });
    expect(await text(await servePage(request("/"), d))).toEqual(["miss", "/ at s2"]);
    expect(await text(await servePage(request("/"), d))).toEqual(["hit", "/ at s2"]);
    // a page not to keep, a signed-in reader, and an address that is no public page: the app answers
    expect(await servePage(request("/evaluations/running1"), d)).toBeNull();
    expect(await servePage(request("/", { cookies: ["next-auth.session-token"] }), d)).toBeNull();
    expect(await servePage(request("/admin"), d)).toBeNull();
    expect(d.rendered).toEqual(["/", "/tasks/qwen3-8b?page=2", "/"]);
    const head = await servePage(request("/", { method: "HEAD" }), d);
    expect(head?.headers.get(CACHE_HEADER)).toBe("hit");
    expect(await head?.text()).toBe("");
    expect(head?.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it("serves the body as rendered, uncompressed, whatever the reader accepts (Next compresses the proxy's answer)", async () => {
    const pages = new RenderedPages();
    const plain = new TextEncoder().encode("<html>board</html>");
    const d: PageCacheDeps = {
      pages,
      version: async () => "v1",
      render: async () => ({ status: 200, headers: [["content-type", "text/html"]], body: plain }),
    };
    for (const encoding of ["gzip, deflate, br", undefined, "identity"]) {
      const r = (await servePage(request("/", { headers: encoding ? { "accept-encoding": encoding } : {} }), d))!;
      expect(r.headers.get("content-encoding")).toBeNull();
      expect(await r.text()).toBe("<html>board</html>");
    }
    expect(pages.heldBytes).toBe(plain.byteLength);
  });
});

describe("a final evaluation's page kept outside the process", () => {
  it("is served from what was kept at its version without a render, then held; a page kept at another version is not", async () => {
    const rendered: string[] = [];
    const asked: string[] = [];
    let version = "scored@1";
    const d: PageCacheDeps = {
      pages: new RenderedPages(),
      version: async () => version,
      render: async (path) => {
        rendered.push(path);
        return html(`${path} rendered at ${version}`);
      },
      kept: async (target, at) => {
        asked.push(`${targetPath(target)} ${at}`);
        return at === "scored@1" ? html("kept at scored@1") : null;
      },
    };
    const read = async () => {
      const r = (await servePage(request("/evaluations/e1"), d))!;
      return [r.headers.get(CACHE_HEADER), await r.text(), r.headers.get(TIMING_HEADER)?.split(", ")[1]?.split(";")[0]];
    };
    expect(await read()).toEqual(["kept", "kept at scored@1", "kept"]);
    expect(await read()).toEqual(["hit", "kept at scored@1", undefined]);
    expect(rendered).toEqual([]);
    // a refund writes the row: what was kept is of the old version, so the reader gets a render
    version = "void@2";
    expect(await read()).toEqual(["miss", "/evaluations/e1 rendered at void@2", "render"]);
    expect(asked).toEqual(["/evaluations/e1 scored@1", "/evaluations/e1 void@2"]);
    expect(rendered).toEqual(["/evaluations/e1"]);
  });
});
