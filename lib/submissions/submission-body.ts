import { z } from "zod";
import { env } from "../env";
import { currentProtocol, isTaskId, SOLUTION_KINDS, SPLITS } from "../protocol";

const protocol = currentProtocol();
const COMMIT = /^[0-9a-f]{40}$/;
const HUB_REPO = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const HUB_URL = /^https:\/\/huggingface\.co\/([^/]+\/[^/]+)\/tree\/([0-9a-f]{40})\/?$/;
const GIT_REPO = /^(https:\/\/[A-Za-z0-9.-]+\/)?[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*(\.git)?$/;

const revision = z
  .string({ message: "is required: an exact 40-hex commit" })
  .regex(COMMIT, "must be an exact commit: 40 lowercase hex characters");

const speculator = z
  .object({
    uri: z.string({ message: "is required" }).min(1, "is required"),
    revision: z.string().optional(),
  })
  .strict()
  .transform((value, ctx) => {
    const url = HUB_URL.exec(value.uri);
    const uri = url ? url[1]! : value.uri;
    const rev = url ? url[2]! : value.revision;
    if (!HUB_REPO.test(uri)) {
      ctx.addIssue({ code: "custom", path: ["uri"], message: 'must be a Hugging Face repository "org/name"' });
      return z.NEVER;
    }
    const checked = revision.safeParse(rev);
    if (!checked.success) {
      ctx.addIssue({ code: "custom", path: ["revision"], message: checked.error.issues[0]!.message });
      return z.NEVER;
    }
    return { uri, revision: checked.data };
  });

export const inlineEngine = z
  .object({
    inline: z
      .string({ message: "must be a base64 string of a .tar.gz" })
      .min(1, "is empty")
      .max(
        protocol.submission.engineInlineMaxChars,
        `is longer than ${protocol.submission.engineInlineMaxChars.toLocaleString("en")} characters`,
      )
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, "is not base64"),
  })
  .strict();

/** The host of an https engine URL, which must be one the arena fetches from (GIT_ALLOWED_HOSTS). */
function checkGitHost(uri: string, ctx: z.RefinementCtx): void {
  // the regex has its own message; a string it refuses is not looked at here
  if (!GIT_REPO.test(uri) || !uri.startsWith("https://")) return;
  const host = uri.slice("https://".length).split("/")[0]!.toLowerCase();
  const allowed = env().GIT_ALLOWED_HOSTS;
  if (!allowed.includes(host)) {
    ctx.addIssue({
      code: "custom",
      message: `host "${host}" is not allowed: engine repositories are fetched from ${allowed.join(", ") || "no host"}`,
    });
  }
}

export const repositoryEngine = z
  .object({
    uri: z
      .string({ message: "is required" })
      .regex(GIT_REPO, 'must be a git repository: "org/repo" or an https URL')
      .superRefine(checkGitHost),
    revision,
    subdir: z
      .string()
      .regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$))[A-Za-z0-9_./-]*$/, "must be a relative path inside the repository")
      .optional(),
  })
  .strict();

const engine = z.unknown().transform((value, ctx) => {
  if (typeof value !== "object" || value === null) {
    ctx.addIssue({ code: "custom", message: 'is required: {"inline": <base64 .tar.gz>} or {"uri", "revision"}' });
    return z.NEVER;
  }
  const schema = "inline" in value ? inlineEngine : repositoryEngine;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: "custom", message: issue.message });
    return z.NEVER;
  }
  return parsed.data;
});

/** The protocol's section 2 body; every field is checked with an error naming it. */
export const submissionBody = z
  .object({
    task_id: z
      .string({ message: "is required" })
      .refine(isTaskId, { message: `is not a task: expected one of ${Object.keys(protocol.tasks).join(", ")}` }),
    split: z.enum(SPLITS, { message: `must be one of ${SPLITS.join(", ")}` }),
    speculator: speculator.nullable().optional(),
    engine,
    solution: z
      .object({
        method: z
          .string()
          .trim()
          .max(protocol.submission.methodMaxChars, `must be at most ${protocol.submission.methodMaxChars} characters`)
          .optional(),
        kind: z.enum(SOLUTION_KINDS, { message: `must be one of ${SOLUTION_KINDS.join(", ")}` }),
      })
      .strict(),
    profile: z
      .string()
      .refine((p) => protocol.profiles.some((x) => x.name === p), {
        message: `is not a profile: expected one of ${protocol.profiles.map((p) => p.name).join(", ")}`,
      })
      .optional(),
  })
  .strict();

export type SubmissionBody = z.output<typeof submissionBody>;
