/** One metric family as Prometheus' text exposition format (version 0.0.4) writes it. */
export type MetricFamily =
  | { name: string; help: string; type: "gauge" | "counter"; samples: Sample[] }
  | { name: string; help: string; type: "histogram"; buckets: readonly number[]; series: HistogramSeries[] };

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface HistogramSeries {
  labels: Record<string, string>;
  /** The observations: each counts in every bucket whose upper bound it does not exceed. */
  values: readonly number[];
}

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const escapeLabel = (value: string) => value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll('"', '\\"');
const escapeHelp = (value: string) => value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");

function labelText(labels: Record<string, string>): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return "";
  return `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`;
}

function number(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

/** The families as one exposition, each with its HELP and TYPE; a histogram as cumulative buckets, its sum and count. */
export function renderPrometheus(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type !== "histogram") {
      for (const s of family.samples) lines.push(`${family.name}${labelText(s.labels)} ${number(s.value)}`);
      continue;
    }
    for (const series of family.series) {
      for (const bound of family.buckets) {
        const count = series.values.filter((v) => v <= bound).length;
        lines.push(`${family.name}_bucket${labelText({ ...series.labels, le: number(bound) })} ${count}`);
      }
      lines.push(`${family.name}_bucket${labelText({ ...series.labels, le: "+Inf" })} ${series.values.length}`);
      const sum = series.values.reduce((a, b) => a + b, 0);
      lines.push(`${family.name}_sum${labelText(series.labels)} ${number(sum)}`);
      lines.push(`${family.name}_count${labelText(series.labels)} ${series.values.length}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
