import { parseArgs } from "node:util";
import { z } from "zod";
import { currentProtocol, SOLUTION_KINDS, SPLITS, TASK_IDS } from "../protocol";
import { ClientError, EXIT } from "./exit-codes";

const protocol = currentProtocol();
const PROFILES = protocol.profiles.map((p) => p.name) as [string, ...string[]];

export const USAGE = `usage: speculatorarena <command> [options]

  submit --task TASK --engine DIR [--split dev|test] [--speculator org/repo@<commit>]
         [--method TEXT] [--kind KIND] [--profile PROFILE] [--wait]
                       packs and checks DIR, submits it, prints its id (--wait: follows it to the end)
  status <id> [--json]  the evaluation's state, its gates and its SpecScore
  watch <id>            live progress, a bar per pass, until the evaluation ends (resumes after a drop)
  budget [--json]       the evaluations your token has left, per task and split
  board [--task TASK] [--json]
                        a task's board: participants, references, and runs under test profiles
  local --task TASK --engine DIR [--speculator DIR] [--profile PROFILE] [--target DIR] [--sim-speed N] [--json]
                        runs what the arena runs, on this machine, and prints ok, warn or FAIL per gate

  TASK: ${TASK_IDS.join(", ")}   KIND: ${SOLUTION_KINDS.join(", ")}   PROFILE: ${PROFILES.join(", ")}
environment: SPECULATORARENA_URL (default http://localhost:3000), SPECULATORARENA_TOKEN (spa_...)
exit codes: 0 done (scored above 0), 1 ended without a score, 2 bad arguments, 3 engine directory refused,
            4 the arena refused the request, 5 the arena unreachable or failing`;

const COMMIT = /^[0-9a-f]{40}$/;
const HUB_REPO = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const task = z.enum(TASK_IDS, { message: `must be one of ${TASK_IDS.join(", ")}` });
const profile = z.enum(PROFILES, { message: `must be one of ${PROFILES.join(", ")}` });
const id = z.string({ message: "is required" }).regex(/^[A-Za-z0-9_-]{1,64}$/, "is not a submission id");

/** `org/repo@<40-hex commit>`, the Hub speculator as the seeds' home page writes it. */
export const speculatorArg = z.string().transform((value, ctx) => {
  const at = value.lastIndexOf("@");
  const uri = at < 0 ? value : value.slice(0, at);
  const revision = at < 0 ? "" : value.slice(at + 1);
  if (!HUB_REPO.test(uri)) {
    ctx.addIssue({ code: "custom", message: 'must be a Hugging Face repository and commit: "org/repo@<commit>"' });
    return z.NEVER;
  }
  if (!COMMIT.test(revision)) {
    ctx.addIssue({ code: "custom", message: "must name an exact commit after @: 40 lowercase hex characters" });
    return z.NEVER;
  }
  return { uri, revision };
});

const submitArgs = z.object({
  task,
  split: z.enum(SPLITS, { message: `must be one of ${SPLITS.join(", ")}` }).default("dev"),
  engine: z.string({ message: "is required: the engine directory" }).min(1),
  speculator: speculatorArg.optional(),
  method: z
    .string()
    .trim()
    .max(protocol.submission.methodMaxChars, `must be at most ${protocol.submission.methodMaxChars} characters`)
    .optional(),
  kind: z.enum(SOLUTION_KINDS, { message: `must be one of ${SOLUTION_KINDS.join(", ")}` }).default("other"),
  profile: profile.optional(),
  wait: z.boolean().default(false),
});

const localArgs = z.object({
  task,
  engine: z.string({ message: "is required: the engine directory" }).min(1),
  speculator: z.string().min(1).optional(),
  profile: profile.default("full"),
  target: z.string().min(1).optional(),
  "sim-speed": z.coerce.number().positive("must be a positive number").default(1),
  json: z.boolean().default(false),
});

export type Command =
  | { verb: "help" }
  | { verb: "version" }
  | ({ verb: "submit" } & z.output<typeof submitArgs>)
  | { verb: "status"; id: string; json: boolean }
  | { verb: "watch"; id: string }
  | { verb: "budget"; json: boolean }
  | { verb: "board"; task: (typeof TASK_IDS)[number] | undefined; json: boolean }
  | ({ verb: "local" } & z.output<typeof localArgs>);

const OPTIONS = {
  task: { type: "string" },
  split: { type: "string" },
  engine: { type: "string" },
  speculator: { type: "string" },
  method: { type: "string" },
  kind: { type: "string" },
  profile: { type: "string" },
  target: { type: "string" },
  "sim-speed": { type: "string" },
  wait: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** Which options each verb takes; any other is refused by name. */
const ALLOWED: Record<string, readonly string[]> = {
  submit: ["task", "split", "engine", "speculator", "method", "kind", "profile", "wait"],
  status: ["json"],
  watch: [],
  budget: ["json"],
  board: ["task", "json"],
  local: ["task", "engine", "speculator", "profile", "target", "sim-speed", "json"],
};

const usageError = (message: string) =>
  new ClientError(EXIT.usage, `${message} (speculatorarena --help lists the commands and their options)`);

function checked<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw usageError(`--${issue.path.join(".")}: ${issue.message}`);
}

function submissionId(verb: string, value: string | undefined): string {
  if (value === undefined) throw usageError(`${verb}: the submission id is required (submit prints it)`);
  if (!id.safeParse(value).success) throw usageError(`${verb}: "${value}" is not a submission id`);
  return value;
}

/** Reads the command line into one command, or a usage error naming what is wrong. */
export function parseCommand(argv: readonly string[]): Command {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const { positionals, values } = parsed;
  const [verb, ...rest] = positionals;
  if (values.version) return { verb: "version" };
  if (verb === undefined || verb === "help") return { verb: "help" };
  const allowed = ALLOWED[verb];
  if (!allowed) throw usageError(`unknown command "${verb}"`);
  if (values.help) return { verb: "help" };
  const given = Object.keys(values).filter((k) => values[k as keyof typeof values] !== undefined);
  const stray = given.find((k) => !allowed.includes(k));
  if (stray) throw usageError(`${verb} takes no --${stray}`);
  const takesId = verb === "status" || verb === "watch";
  if (rest.length > (takesId ? 1 : 0)) throw usageError(`${verb}: unexpected argument "${rest.at(-1)}"`);
  const json = values.json ?? false;
  switch (verb) {
    case "submit":
      return { verb, ...checked(submitArgs, values) };
    case "status":
      return { verb, id: submissionId(verb, rest[0]), json };
    case "watch":
      return { verb, id: submissionId(verb, rest[0]) };
    case "budget":
      return { verb, json };
    case "board":
      return { verb, task: values.task === undefined ? undefined : checked(z.object({ task }), values).task, json };
    default:
      return { verb: "local", ...checked(localArgs, values) };
  }
}
