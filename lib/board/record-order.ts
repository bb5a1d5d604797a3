import { resultRecordSchema } from "@/lib/gates/record/schema";

const TOP = Object.keys(resultRecordSchema.shape);
/** Inside the record: workloads in the protocol's order, each engine's figures candidate first, passes before their median. */
const NESTED = [
  "solo",
  "team",
  "busy",
  "pooled",
  "candidate",
  "stock",
  "passes",
  "ratio",
  "gap",
  "se",
  "p50",
  "p90",
  "p99",
];

function ordered(value: unknown, order: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => ordered(v, NESTED));
  if (typeof value !== "object" || value === null) return value;
  const rank = (k: string) => {
    const i = order.indexOf(k);
    return i === -1 ? order.length : i;
  };
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => rank(a) - rank(b))
      .map(([k, v]) => [k, ordered(v, NESTED)]),
  );
}

/**
 * The judge's record with its fields in the order the judge defines them (the seed page's order: ratios,
 * specscore, … score, then the rest, workloads solo, team, busy); the database's JSON type does not keep key order.
 * Fields the order does not name keep their stored order.
 */
export function orderedRecord(record: unknown): unknown {
  return ordered(record, TOP);
}
