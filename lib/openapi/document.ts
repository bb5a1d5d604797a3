import { z } from "zod";
import { registerBody } from "../accounts/register-account";
import { boardQuery, publicBoardSchema } from "../board/public-board";
import { CLIENT_VERSION } from "../client/versions";
import { healthSchema } from "../health/check-health";
import { currentProtocol, TASK_IDS } from "../protocol";
import { inlineEngine, repositoryEngine, submissionBody } from "../submissions/submission-body";
import {
  budgetSchema,
  cancelledSchema,
  createdSubmissionSchema,
  errorBodySchema,
  protocolSchema,
  registeredSchema,
  submissionListSchema,
  submissionViewSchema,
} from "./response-schemas";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const uri = (id: string) => `#/components/schemas/${id}`;

/** A registry's schemas as OpenAPI components: JSON Schema 2020-12, the dialect OpenAPI 3.1 uses. */
function components(
  schemas: Record<string, z.ZodType>,
  io: "input" | "output",
  override?: (ctx: { zodSchema: unknown; jsonSchema: Json }) => void,
): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: out } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    uri,
    ...(override ? { override: (ctx) => override(ctx as never) } : {}),
  }) as { schemas: Record<string, Json> };
  for (const schema of Object.values(out)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return out;
}

/** The request side, converted as the routes read it (zod's input): where a refinement or a transform holds a rule JSON Schema cannot say, the rule is written out here from the same schemas. */
function requestSchemas(): Record<string, Json> {
  const protocol = currentProtocol();
  const single = (schema: z.ZodType) => components({ S: schema }, "input").S!;
  const shape = submissionBody.shape;
  return components({ SubmissionBody: submissionBody, RegisterBody: registerBody }, "input", (ctx) => {
    if (ctx.zodSchema === shape.task_id) Object.assign(ctx.jsonSchema, { enum: [...TASK_IDS] });
    if (ctx.zodSchema === shape.profile.unwrap()) {
      Object.assign(ctx.jsonSchema, {
        enum: protocol.profiles.map((p) => p.name),
        description:
          "a test profile (labelled, never ranked: smoke for a quick look, ci for automated tests); absent for the full protocol",
      });
    }
    if (ctx.zodSchema === shape.engine) {
      Object.assign(ctx.jsonSchema, {
        oneOf: [
          {
            ...single(inlineEngine),
            description: `the engine directory as a base64 .tar.gz (\`tar -C engine -cz . | base64 -w0\`): launch.sh at its top, files and folders only, at most ${protocol.submission.engineInlineMaxChars.toLocaleString("en")} characters`,
          },
          {
            ...single(repositoryEngine),
            description: `a git repository at an exact commit (at most ${protocol.submission.engineRepositoryMaxBytes / 1024 / 1024} MiB), optionally a folder of it`,
          },
        ],
      });
    }
    if (ctx.zodSchema === shape.speculator) {
      Object.assign(ctx.jsonSchema, {
        description:
          "a Hugging Face repository at an exact commit ({uri: org/name, revision: 40-hex commit}, or uri https://huggingface.co/org/name/tree/<commit>); only its *.json and *.safetensors files are fetched",
      });
    }
  });
}

function responseSchemas(): Record<string, Json> {
  return components(
    {
      Error: errorBodySchema,
      CreatedSubmission: createdSubmissionSchema,
      Submission: submissionViewSchema,
      SubmissionList: submissionListSchema,
      Cancelled: cancelledSchema,
      Budget: budgetSchema,
      Board: publicBoardSchema,
      Protocol: protocolSchema,
      Registered: registeredSchema,
      Health: healthSchema,
    },
    "output",
  );
}

const json = (schema: Json, description: string) => ({ description, content: { "application/json": { schema } } });
const error = (description: string) => json(ref("Error"), description);
const token = [{ token: [] }];
const idParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "the submission's id (`submit` prints it)",
  schema: { type: "string" },
};
const ERRORS = {
  "400": error("invalid_request: a field is wrong; the message names it"),
  "401": error("unauthorized: the token is missing, malformed, unknown or revoked"),
  "404": error("not_found"),
  "413": error("payload_too_large: the body is over the route's limit"),
  "429": error(
    "rate_limited: too many requests or failed authentications from this address or token (see Retry-After)",
  ),
  "500": error("internal: the arena's own failure, logged and masked; nothing is charged"),
  "503": error("unavailable: a datastore of the arena cannot be reached just now; nothing was done (see Retry-After)"),
} as const;

export const EVENT_TYPES: Record<string, string> = {
  state: "sent first on every connection, without an id: the submission as GET /api/submissions/{id} shows it",
  status:
    "{status, phase, reason}: the evaluation moved (queued, fetching, running, checking, then scored, failed, void or cancelled); the stream ends after a final one",
  sealed: "the sealed inputs' digests: the engine archive's and the speculator's commit",
  phase: "{phase}: candidate-timed, device-idle, stock-timed, checks-candidate, checks-stock, gates",
  engine: "{engine: candidate|stock, state: starting|healthy|stopping|stopped|died|start-failed, detail?}",
  "pass-started": "{engine, workload, pass (from 0), fixedSeconds}",
  "pass-progress": "{engine, workload, pass, elapsedSeconds, fixedSeconds, requestsDone, tokensPerSecond}",
  "pass-ended": "{engine, workload, pass, speed (output tokens per second), requests, failed, outputTokens}",
  "check-progress":
    "{engine, check: greedy|fidelity|sampled-candidate|sampled-stock, done, total}: a lossless check's requests as they settle",
  memory: "{usedMib, totalMib}: the device's memory, sampled from outside",
  queue:
    "without an id, while queued: {position (1 = next), ahead, running, slots, estimate: {startsAt, finishesAt, basis} or null, unmeasured}, sent on connecting and each time the queue moves",
  log: "{level: info|warn|error, message}",
};

/**
 * The arena's public API as OpenAPI 3.1, from the zod schemas the routes validate with (requests) and the shapes
 * they answer with (responses, checked against the app by lib/openapi/openapi.test.ts). The operators' routes
 * (/api/admin/*, /api/auth/*) serve the admin pages with a browser session and are not part of it.
 */
export function openApiDocument(serverUrl: string): Json {
  const protocol = currentProtocol();
  const boardTask = components({ Q: boardQuery }, "input").Q! as { properties: { task: Json } };
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "SpeculatorArena API",
      version: CLIENT_VERSION,
      summary: "Submit a speculative decoder and its engine, follow its evaluation, read the boards.",
      description: `Protocol ${protocol.version} is in force (GET /api/protocol). Every error answers {"error": {"code", "message"}}: the code for programs, the message for people, naming the field or the limit. Budgets: ${protocol.budgets.participant.dev} dev and ${protocol.budgets.participant.test} test evaluations per task and account; a void evaluation is refunded. The clients (/client.py, /kit.tar.gz, npx speculatorarena) speak exactly this API; /guide explains it.`,
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: "submissions", description: "submit, read, follow and cancel your evaluations" },
      { name: "arena", description: "the rules, the boards, your budget, an account" },
    ],
    paths: {
      "/api/submissions": {
        post: {
          operationId: "createSubmission",
          tags: ["submissions"],
          summary: "Submit an engine directory and an optional speculator",
          description:
            "Checks every field (400 naming it), charges one evaluation of the account's budget for the task and split (403 budget_exhausted when none is left; nothing is charged for a refused request) and queues the evaluation.",
          security: token,
          requestBody: { required: true, content: { "application/json": { schema: ref("SubmissionBody") } } },
          responses: {
            "201": json(ref("CreatedSubmission"), "submitted and queued"),
            "400": ERRORS["400"],
            "401": ERRORS["401"],
            "403": error("budget_exhausted: no evaluation of this task and split is left"),
            "413": ERRORS["413"],
            "415": error("unsupported_media_type: the body must be application/json"),
            "429": ERRORS["429"],
            "500": ERRORS["500"],
            "503": ERRORS["503"],
          },
        },
        get: {
          operationId: "listSubmissions",
          tags: ["submissions"],
          summary: "Your own submissions, newest first",
          security: token,
          responses: {
            "200": json(ref("SubmissionList"), "your submissions"),
            "401": ERRORS["401"],
            "429": ERRORS["429"],
          },
        },
      },
      "/api/submissions/{id}": {
        get: {
          operationId: "getSubmission",
          tags: ["submissions"],
          summary: "A submission, its evaluation's state and, once it ended, its result",
          description:
            "`evaluation.result` is everything the judge recorded (the evaluation page's JSON); `log_tail`, the engine's last log lines, is given to its submitter only.",
          security: token,
          parameters: [idParameter],
          responses: {
            "200": json(ref("Submission"), "the submission"),
            "401": ERRORS["401"],
            "404": ERRORS["404"],
            "429": ERRORS["429"],
          },
        },
      },
      "/api/submissions/{id}/cancel": {
        post: {
          operationId: "cancelSubmission",
          tags: ["submissions"],
          summary: "Cancel your evaluation: refunded while queued, charged once running",
          security: token,
          parameters: [idParameter],
          responses: {
            "200": json(ref("Cancelled"), "cancelled"),
            "401": ERRORS["401"],
            "403": error("forbidden: only the submitting account may cancel it"),
            "404": ERRORS["404"],
            "409": error("conflict: the evaluation has already ended"),
            "429": ERRORS["429"],
          },
        },
      },
      "/api/submissions/{id}/events": {
        get: {
          operationId: "followSubmission",
          tags: ["submissions"],
          summary: "The evaluation's live progress, as server-sent events",
          description: `Public. The current state first, then every stored event after Last-Event-ID, then live ones; each numbered event has an id, and a client that lost the connection reconnects with Last-Event-ID (or ?lastEventId=) and misses nothing. A heartbeat comment every 15 s; the stream ends after a final status. Event types: ${Object.entries(
            EVENT_TYPES,
          )
            .map(([type, what]) => `\`${type}\` ${what}`)
            .join("; ")}. Every event's data carries \`at\`, when it was recorded.`,
          security: [],
          parameters: [
            idParameter,
            {
              name: "Last-Event-ID",
              in: "header",
              required: false,
              description: "resume after this event id",
              schema: { type: "string", pattern: "^[0-9]+$" },
            },
            {
              name: "lastEventId",
              in: "query",
              required: false,
              description: "the same, for clients that cannot set headers",
              schema: { type: "string", pattern: "^[0-9]+$" },
            },
          ],
          responses: {
            "200": {
              description: "the event stream",
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            "404": ERRORS["404"],
            "429": ERRORS["429"],
          },
        },
      },
      "/api/budget": {
        get: {
          operationId: "getBudget",
          tags: ["arena"],
          summary: "The evaluations your account has left, per task and split",
          security: token,
          responses: { "200": json(ref("Budget"), "your budget"), "401": ERRORS["401"], "429": ERRORS["429"] },
        },
      },
      "/api/board": {
        get: {
          operationId: "getBoard",
          tags: ["arena"],
          summary: "A task's board",
          description:
            "Public. Each participant's last scored test evaluation under the full protocol, ranked by SpecScore; the reference speculators, ranked apart; and recent runs under test profiles, labelled and never ranked.",
          security: [],
          parameters: [
            {
              name: "task",
              in: "query",
              required: true,
              description: "the task",
              schema: boardTask.properties.task,
            },
          ],
          responses: { "200": json(ref("Board"), "the board"), "400": ERRORS["400"], "429": ERRORS["429"] },
        },
      },
      "/api/health": {
        get: {
          operationId: "getHealth",
          tags: ["arena"],
          summary: "Whether the arena's datastores answer (a readiness probe)",
          description: "Public. 200 while PostgreSQL and Redis both answer within 1.5 s; 503 otherwise.",
          security: [],
          responses: { "200": json(ref("Health"), "both answer"), "503": ERRORS["503"], "429": ERRORS["429"] },
        },
      },
      "/api/metrics": {
        get: {
          operationId: "getMetrics",
          tags: ["arena"],
          summary:
            "The operators' Prometheus metrics (the queue, evaluations by status, durations, GPU seconds, pod failures)",
          description: "Operators only: the bearer token is the arena's METRICS_TOKEN; 404 where none is set.",
          security: [{ metricsToken: [] }],
          responses: {
            "200": {
              description: "Prometheus' text exposition format, version 0.0.4",
              content: { "text/plain": { schema: { type: "string" } } },
            },
            "401": error("unauthorized: the metrics token is missing or wrong"),
            "404": error("not_found: metrics are not enabled (no METRICS_TOKEN)"),
            "429": ERRORS["429"],
            "503": ERRORS["503"],
          },
        },
      },
      "/api/protocol": {
        get: {
          operationId: "getProtocol",
          tags: ["arena"],
          summary: "The protocol in force, as typed data",
          security: [],
          responses: { "200": json(ref("Protocol"), "the protocol") },
        },
      },
      "/api/protocol/{version}": {
        get: {
          operationId: "getProtocolVersion",
          tags: ["arena"],
          summary: "A published version of the protocol",
          security: [],
          parameters: [
            { name: "version", in: "path", required: true, description: "its number", schema: { type: "string" } },
          ],
          responses: {
            "200": json(ref("Protocol"), "that version"),
            "404": error("not_found: no such version"),
            "429": ERRORS["429"],
          },
        },
      },
      "/api/register": {
        post: {
          operationId: "register",
          tags: ["arena"],
          summary: "Register an account while the operators keep registration open",
          description:
            "Accounts are by invitation: the operators give each participant a token. While they open registration, this hands one out, shown once.",
          security: [],
          requestBody: { required: true, content: { "application/json": { schema: ref("RegisterBody") } } },
          responses: {
            "201": json(ref("Registered"), "the account and its token"),
            "400": ERRORS["400"],
            "403": error("registration_closed: accounts are by invitation now"),
            "409": error("conflict: an account has this name"),
            "429": ERRORS["429"],
          },
        },
      },
      "/api/openapi.json": {
        get: {
          operationId: "getOpenApi",
          tags: ["arena"],
          summary: "This document",
          security: [],
          responses: {
            "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } },
          },
        },
      },
    },
    components: {
      schemas: { ...requestSchemas(), ...responseSchemas() },
      securitySchemes: {
        token: {
          type: "http",
          scheme: "bearer",
          description: "the account's token (spa_...), which the operators give (or /register while open)",
        },
        metricsToken: { type: "http", scheme: "bearer", description: "the arena's METRICS_TOKEN (operators only)" },
      },
    },
  };
}
