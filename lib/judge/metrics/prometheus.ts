/** One Prometheus sample: name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?\s*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"/g;

/** Parses Prometheus text exposition (version 0.0.4): `#` lines are skipped; unparseable lines are ignored. */
export function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    if (m[3]) {
      for (const l of m[3].matchAll(LABEL))
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    }
    const value = m[4] === "+Inf" ? Infinity : m[4] === "-Inf" ? -Infinity : Number(m[4]);
    if (Number.isNaN(value) && m[4] !== "NaN") continue;
    out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** Sums a metric over every label set (several engines or model names), optionally grouped by one label. */
export function sumMetric(samples: readonly Sample[], name: string): number | null {
  let found = false;
  let total = 0;
  for (const s of samples) {
    if (s.name === name) {
      found = true;
      total += s.value;
    }
  }
  return found ? total : null;
}

export function sumByLabel(samples: readonly Sample[], name: string, label: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name) continue;
    const key = s.labels[label];
    if (key === undefined) continue;
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}
