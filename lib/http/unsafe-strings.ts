import { AppError } from "./app-error";

const NUL = "\u0000";
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string PostgreSQL could not store as sent: a NUL (refused) or a lone surrogate (mangled). */
export function unsafeStringProblem(value: string): string | null {
  if (value.includes(NUL)) return "contains a NUL character";
  if (LONE_SURROGATE.test(value)) return "contains a lone UTF-16 surrogate (not valid Unicode)";
  return null;
}

/** No request of the arena's nests deeper; a deeper body is refused before anything walks it. */
export const MAX_JSON_DEPTH = 64;

/**
 * Walks a parsed JSON value (iteratively: a hostile body may nest deeply) and refuses, naming the field, the first
 * string or object key that holds a NUL or a lone surrogate, before any of it reaches a query.
 */
export function assertSafeStrings(root: unknown): void {
  interface Node {
    value: unknown;
    key: string | null;
    parent: Node | null;
    depth: number;
  }
  const nameOf = (node: Node): string => {
    const path: string[] = [];
    for (let at: Node | null = node; at?.key != null; at = at.parent) path.unshift(at.key);
    return path.length > 0 ? path.join(".") : "body";
  };
  const refuse = (node: Node, problem: string) =>
    new AppError({ code: "invalid_request", message: `${nameOf(node)}: ${problem}` });
  const stack: Node[] = [{ value: root, key: null, parent: null, depth: 0 }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value, depth } = node;
    if (typeof value === "string") {
      const problem = unsafeStringProblem(value);
      if (problem) throw refuse(node, problem);
    } else if (typeof value === "object" && value !== null) {
      if (depth >= MAX_JSON_DEPTH) {
        throw new AppError({ code: "invalid_request", message: `body: nested deeper than ${MAX_JSON_DEPTH} levels` });
      }
      const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const problem = Array.isArray(value) ? null : unsafeStringProblem(key);
        if (problem) throw refuse(node, `a field name ${problem}`);
        stack.push({ value: item, key, parent: node, depth: depth + 1 });
      }
    }
  }
}

/** The same for a route's path parameters (`/api/submissions/<id>`), each named by its parameter. */
export function assertSafeParams(params: Record<string, string | string[]>): void {
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const problem = unsafeStringProblem(item);
      if (problem) throw new AppError({ code: "invalid_request", message: `${key}: ${problem}` });
    }
  }
}
