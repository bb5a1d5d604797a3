import { GATE_CHECKS } from "@/lib/gates/record/reasons";

/** The /gates anchor that explains a gate row, found by its key or, failing that, its check's name. */
export function gateAnchor(key: string | null, check: string): string {
  const keys = Object.keys(GATE_CHECKS) as (keyof typeof GATE_CHECKS)[];
  if (key && keys.includes(key as keyof typeof GATE_CHECKS)) return key;
  const byName = keys.find((k) => GATE_CHECKS[k] === check);
  return byName ?? "";
}
