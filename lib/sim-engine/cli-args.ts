import { z } from "zod";
import { type AttackStrengths, MAX_TOP_K_OVERRIDE, strengthsProblem } from "./attack-strengths";
import { MODES, strengthsConflict } from "./modes";
import { SPECULATOR_METHODS } from "./speculators/drafters";

export const USAGE = `usage: sim-engine serve [--mode MODE] [--k N] [--speculator ngram|draft|eagle] [--drafter NAME] [--fail-rate R] [--crash-after N]
                        [--temperature-scale S] [--top-k K] [--quantize-scale S]
       sim-engine install-plugin DIR
modes: ${MODES.join(", ")}
drafters: those the plugins installed under $HOME register`;

/** A flag's value as a number; an empty or non-numeric value is refused with `message` (it names the flag). */
const numberFlag = (message: string) =>
  z
    .string()
    .trim()
    .min(1, message)
    .pipe(z.coerce.number({ error: message }));

const serveArgsSchema = z
  .object({
    mode: z
      .enum(MODES, { error: (i) => `unknown mode ${JSON.stringify(i.input)} (modes: ${MODES.join(", ")})` })
      .optional(),
    k: z.coerce
      .number({ error: "--k must be an integer" })
      .int("--k must be an integer")
      .min(1, "--k must be at least 1")
      .max(16, "--k must be at most 16")
      .optional(),
    speculator: z.enum(SPECULATOR_METHODS, { error: "--speculator must be ngram, draft or eagle" }).optional(),
    /** A drafter an installed plugin registers (lib/sim-engine/cli-plugins.ts). */
    drafter: z.string().min(1, "--drafter needs a name").optional(),
    "fail-rate": z.coerce
      .number({ error: "--fail-rate must be a number" })
      .min(0, "--fail-rate must be in [0, 1]")
      .max(1, "--fail-rate must be in [0, 1]")
      .optional(),
    "crash-after": z.coerce
      .number({ error: "--crash-after must be an integer" })
      .int("--crash-after must be an integer")
      .min(1, "--crash-after must be at least 1")
      .optional(),
    /** The parametric attacks (attack-strengths.ts): their ranges are checked below, where startSimEngine checks them. */
    "temperature-scale": numberFlag("--temperature-scale must be a number in (0, 10]").optional(),
    "top-k": numberFlag(`--top-k must be an integer from 1 to ${MAX_TOP_K_OVERRIDE}`).optional(),
    "quantize-scale": numberFlag("--quantize-scale must be a number in [0, 100]").optional(),
  })
  .strict()
  .superRefine((args, ctx) => {
    const strengths = strengthsOfArgs(args);
    const problem = strengthsProblem(strengths) ?? (args.mode ? strengthsConflict(args.mode, strengths) : null);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

export type ServeArgs = z.infer<typeof serveArgsSchema>;

/** The attack strengths the flags set, as startSimEngine's options name them. */
export function strengthsOfArgs(
  args: Pick<ServeArgs, "temperature-scale" | "top-k" | "quantize-scale">,
): AttackStrengths {
  return {
    ...(args["temperature-scale"] === undefined ? {} : { temperatureScale: args["temperature-scale"] }),
    ...(args["top-k"] === undefined ? {} : { topK: args["top-k"] }),
    ...(args["quantize-scale"] === undefined ? {} : { quantizeScale: args["quantize-scale"] }),
  };
}

/** `install-plugin DIR`: the plugin directory to install; throws an Error naming what is wrong. */
export function parseInstallArgs(argv: readonly string[]): { dir: string } {
  if (argv[0] !== "install-plugin" || argv.length !== 2 || !argv[1])
    throw new Error(`expected "install-plugin DIR"\n${USAGE}`);
  return { dir: argv[1] };
}

/** Parses `serve --flag value ...`; throws an Error naming what is wrong. */
export function parseServeArgs(argv: readonly string[]): ServeArgs {
  if (argv[0] !== "serve")
    throw new Error(`expected the command "serve", got ${JSON.stringify(argv[0] ?? "")}\n${USAGE}`);
  const raw: Record<string, string> = {};
  for (let i = 1; i < argv.length; i++) {
    const flag = argv[i]!;
    if (!flag.startsWith("--")) throw new Error(`unexpected argument ${JSON.stringify(flag)}\n${USAGE}`);
    let name = flag.slice(2);
    let value: string | undefined;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    } else {
      value = argv[++i];
    }
    if (value === undefined) throw new Error(`flag --${name} needs a value\n${USAGE}`);
    raw[name] = value;
  }
  const parsed = serveArgsSchema.safeParse(raw);
  if (!parsed.success) {
    const msgs = parsed.error.issues.map((i) =>
      i.code === "unrecognized_keys" ? `unknown flag ${i.keys.map((k) => `--${k}`).join(", ")}` : i.message,
    );
    throw new Error(`${msgs.join("; ")}\n${USAGE}`);
  }
  return parsed.data;
}
