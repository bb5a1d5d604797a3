import { z } from "zod";
import type { BudgetLine } from "../budgets/remaining-budget";
import { ACTIVE_STATUSES, TERMINAL_STATUSES } from "../evaluations/status-machine";
import { SPLITS, TASK_IDS } from "../protocol";
import type { CreatedSubmission } from "../submissions/create-submission";
import type { SubmissionView } from "../submissions/get-submission";

/** The API's one error shape (lib/http/error-response.ts). */
export const errorBodySchema = z
  .object({
    error: z
      .object({
        code: z.string().meta({
          description:
            "what went wrong, for programs: invalid_request (400), unauthorized (401), forbidden, budget_exhausted and registration_closed (403), not_found (404), conflict (409), payload_too_large (413), unsupported_media_type (415), rate_limited (429, with Retry-After), internal (500), unavailable (503, with Retry-After)",
        }),
        message: z.string().meta({ description: "what went wrong, for people: names the field or the limit" }),
      })
      .strict(),
  })
  .strict();

export const createdSubmissionSchema: z.ZodType<CreatedSubmission> = z
  .object({
    id: z.string().meta({ description: "the submission's id: status, watch and the evaluation page take it" }),
    evaluationId: z.string(),
    status: z.literal("queued"),
  })
  .strict();

const evaluationViewSchema = z
  .object({
    id: z.string(),
    status: z.enum([...ACTIVE_STATUSES, ...TERMINAL_STATUSES]),
    phase: z.string().nullable(),
    reason: z.string().nullable().meta({ description: "why it failed, is void, or scored 0" }),
    specscore: z.number().nullable(),
    gpu_seconds: z.number(),
    refunded: z.boolean(),
    queued_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    result: z.unknown().meta({
      description: "once it ended: everything the judge recorded (the evaluation page's JSON), else null",
    }),
    log_tail: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "the engine's last log lines: for its submitter and the operators only" }),
  })
  .strict();

export const submissionViewSchema: z.ZodType<SubmissionView> = z
  .object({
    id: z.string(),
    task_id: z.string(),
    split: z.string(),
    profile: z.string(),
    account: z.string(),
    speculator: z.object({ uri: z.string(), revision: z.string() }).strict().nullable(),
    engine: z
      .object({
        source: z.string(),
        sha256: z.string().nullable(),
        uri: z.string().nullable(),
        revision: z.string().nullable(),
        subdir: z.string().nullable(),
      })
      .strict(),
    solution: z.object({ method: z.string().nullable(), kind: z.string() }).strict(),
    created_at: z.string(),
    evaluation: evaluationViewSchema.nullable(),
  })
  .strict();

export const submissionListSchema = z.object({ submissions: z.array(submissionViewSchema) }).strict();

const budgetLineSchema: z.ZodType<BudgetLine> = z
  .object({
    taskId: z.string(),
    split: z.enum(SPLITS),
    limit: z.number().int().nullable().meta({ description: "null: not limited" }),
    used: z.number().int(),
    remaining: z.number().int().nullable(),
  })
  .strict();

export const budgetSchema = z.object({ account: z.string(), budget: z.array(budgetLineSchema) }).strict();

export const cancelledSchema = z.object({ status: z.literal("cancelled"), refunded: z.boolean() }).strict();

export const registeredSchema = z
  .object({
    token: z.string().meta({ description: "the account's token, shown this once and kept only as its hash" }),
    prefix: z.string(),
    account: z.string(),
    shown_once: z.literal(true),
  })
  .strict();

/** `GET /api/protocol`: the rules in force as typed data (lib/protocol/v1.ts); its head is fixed, the rest grows. */
export const protocolSchema = z
  .object({
    version: z.string(),
    title: z.string(),
    published: z.string(),
    tasks: z.record(z.enum(TASK_IDS), z.object({ id: z.enum(TASK_IDS), name: z.string() }).passthrough()),
    submission: z.object({ engineInlineMaxChars: z.number().int(), methodMaxChars: z.number().int() }).passthrough(),
    budgets: z.record(z.string(), z.object({ dev: z.number().int(), test: z.number().int() })),
    profiles: z.array(z.object({ name: z.string(), passes: z.number().int() }).passthrough()),
  })
  .passthrough();
