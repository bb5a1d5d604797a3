import { gzipSync } from "node:zlib";
import { writeTar } from "../engine-archive/write-tar";
import { createSubmission } from "../submissions/create-submission";
import { issueToken } from "../tokens/issue-token";

/** The smallest engine a submission accepts: a launch.sh that does nothing. */
export const NOOP_ENGINE_INLINE = gzipSync(
  writeTar([{ path: "launch.sh", data: new TextEncoder().encode("#!/bin/sh\n"), mode: 0o755 }]),
).toString("base64");

/**
 * A new account's dev submission of the no-op engine, stored and charged but never put on a queue: an evaluation
 * for tests that drive its events or status themselves.
 */
export async function queuedSubmission(accountName: string) {
  const { accountId, token } = await issueToken({ accountName });
  const created = await createSubmission(
    { accountId, kind: "participant" },
    { task_id: "qwen3-8b", split: "dev", engine: { inline: NOOP_ENGINE_INLINE }, solution: { kind: "other" } },
    { enqueue: async () => undefined },
  );
  return { accountId, token, submissionId: created.id, evaluationId: created.evaluationId };
}
