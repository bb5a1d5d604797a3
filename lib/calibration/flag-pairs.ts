/** `--flag value` pairs into a record; anything else is an error that shows `usage`. */
export function flagPairs(argv: readonly string[], usage: string): Record<string, string> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (!flag.startsWith("--")) throw new Error(`bad argument "${flag}"\n${usage}`);
    if (value === undefined || value.startsWith("--")) throw new Error(`${flag} needs a value\n${usage}`);
    raw[flag.slice(2)] = value;
  }
  return raw;
}
