import { gzipSync } from "node:zlib";
import type { APIRequestContext } from "@playwright/test";
import { packDirectory } from "../../lib/engine-archive/pack-directory";
import { writeTar } from "../../lib/engine-archive/write-tar";
import { expect } from "./arena";

/**
 * An engine directory whose launch.sh gives up, as a broken submission does, after `seconds` (0: at once): the arena
 * scores it 0 ("the candidate engine did not start") that long after its pod starts, which makes a queue that moves
 * quickly, at a pace a page can be seen to follow.
 */
export function engineThatDoesNotStart(seconds = 0): string {
  const launch = `#!/bin/sh\nsleep ${seconds}\necho "this engine gives up before serving" >&2\nexit 1\n`;
  return gzipSync(writeTar([{ path: "launch.sh", data: new TextEncoder().encode(launch), mode: 0o755 }])).toString(
    "base64",
  );
}

export async function packedEngine(directory: string): Promise<string> {
  return (await packDirectory(directory)).toString("base64");
}

/** Submits through the API as the kit's clients do; returns the submission's and its evaluation's ids. */
export async function submitThroughApi(
  request: APIRequestContext,
  token: string,
  body: { inline: string; method: string; profile: string; taskId?: string; split?: "dev" | "test" },
): Promise<{ id: string; evaluationId: string }> {
  const response = await request.post("/api/submissions", {
    headers: { authorization: `Bearer ${token}` },
    data: {
      task_id: body.taskId ?? "qwen3-8b",
      split: body.split ?? "dev",
      engine: { inline: body.inline },
      solution: { method: body.method, kind: "other" },
      profile: body.profile,
    },
  });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { id: string; evaluationId: string };
}
