import { z } from "zod";
import { MODES } from "./modes";
import { SPECULATOR_METHODS } from "./speculators/drafters";

export const USAGE = `usage: sim-engine serve [--mode MODE] [--k N] [--speculator ngram|draft|eagle] [--drafter NAME] [--fail-rate R] [--crash-after N]
       sim-engine install-plugin DIR
modes: ${MODES.join(", ")}
drafters: those the plugins installed under $HOME register`;

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
  })
  .strict();

export type ServeArgs = z.infer<typeof serveArgsSchema>;

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
