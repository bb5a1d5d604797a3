import { isTaskId, type TaskId } from "@/lib/protocol";

/** A public page whose rendered answer the page cache may keep: the same for every reader who is not signed in. */
export type PageTarget =
  | { kind: "home" }
  | { kind: "task"; task: TaskId; page: number }
  | { kind: "evaluation"; id: string };

const EVALUATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The page an address shows, or null for any other address. A task page's `?page=` is read as the page reads it
 * (lib/board/board-page.ts: anything but a positive whole number is the first page), and every other query
 * parameter is dropped: addresses that show the same page share one entry, and made-up parameters cannot fill the
 * cache or force a render.
 */
export function pageTarget(url: URL): PageTarget | null {
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, "") : url.pathname;
  if (path === "/") return { kind: "home" };
  const task = /^\/tasks\/([^/]+)$/.exec(path);
  if (task) {
    const id = decodeURIComponent(task[1]!);
    if (!isTaskId(id)) return null;
    const asked = url.searchParams.get("page");
    return { kind: "task", task: id, page: asked && /^[1-9][0-9]{0,6}$/.test(asked) ? Number(asked) : 1 };
  }
  const evaluation = /^\/evaluations\/([^/]+)$/.exec(path);
  if (evaluation && EVALUATION_ID.test(evaluation[1]!)) return { kind: "evaluation", id: evaluation[1]! };
  return null;
}

/** The address the cache renders a target from, and its key. */
export function targetPath(target: PageTarget): string {
  switch (target.kind) {
    case "home":
      return "/";
    case "task":
      return target.page === 1 ? `/tasks/${target.task}` : `/tasks/${target.task}?page=${target.page}`;
    case "evaluation":
      return `/evaluations/${target.id}`;
  }
}
